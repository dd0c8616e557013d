import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { paymentsAuthorizationQuery, signatureOffered } from "@/api/queries";
import { getPublicConfig } from "@/config";
import "./getting-started.css";

/** Display names of the platforms the settings' SOCIAL_LINKS may name; an unknown key is shown
 * as written, so a new platform needs only a settings change. */
const PLATFORM_NAMES: Record<string, string> = {
  x: "X (Twitter)",
  twitter: "X (Twitter)",
  instagram: "Instagram",
  tiktok: "TikTok",
  youtube: "YouTube",
  facebook: "Facebook",
  linkedin: "LinkedIn",
  discord: "Discord",
  telegram: "Telegram",
};

export function platformName(key: string): string {
  return PLATFORM_NAMES[key.toLowerCase()] ?? key.charAt(0).toUpperCase() + key.slice(1);
}

const VIDEO_ID = /^[A-Za-z0-9_-]{6,20}$/;

/** The Getting Started tab: how to play in five steps, the social links and
 * two embedded videos, all from the page's public config. */
export function GettingStartedTab() {
  const { socialLinks, videoIds, chainName, localChain } = getPublicConfig();
  // Where the token's domain is known and the relay is on, a player needs no ETH.
  const signature = signatureOffered(useQuery(paymentsAuthorizationQuery()).data);
  const links = Object.entries(socialLinks);
  const videos = videoIds.filter((id) => VIDEO_ID.test(id));

  return (
    <section className="tab-section getting-started-tab" aria-labelledby="getting-started-heading">
      <h2 id="getting-started-heading">Getting Started</h2>
      <p className="tab-intro">
        Geopoem hides a place on Earth inside a poem. Work out where it is, send your latitude and longitude with a USDC
        stake, and win a share of the pot if you are right.
      </p>

      <h3>How to play</h3>
      <ol className="steps">
        <li>
          Install a browser wallet such as MetaMask and create an account. During the beta everything runs on the{" "}
          {chainName || "test"} network{localChain ? ", a development chain on this computer," : ""} with test tokens
          that have no value. On a phone, install the MetaMask app and open Geopoem in its built-in browser: when this
          page finds no wallet on a phone it offers an "Open in MetaMask" link that does it.
        </li>
        {signature ? (
          <li>
            Get test USDC for your stake. Paying by signature needs nothing else: Geopoem's relayer puts your signed
            stake into the pot and pays the gas. To pay from your wallet by approval you also need test ETH for gas. The
            Sepolia Testnet tab walks you through it step by step.
          </li>
        ) : (
          <li>
            Get test ETH for gas and test USDC for your stake: your wallet approves the pot to take the USDC and sends
            the stake. The Sepolia Testnet tab walks you through it step by step.
          </li>
        )}
        <li>Open the Active Challenge tab, read the poem and its instructions, and find the place it describes.</li>
        <li>
          Enter your guess as "latitude, longitude" (for example 29.979175, 31.134258) and a stake of at least 1.00
          USDC, then press Submit Your Solution &amp; Pay Your Bid, choose how to pay into the pot and confirm in your
          wallet. Your stake goes into the Geopoem pot, a contract nobody can take it from.
        </li>
        <li>
          When the solution is revealed, the pot scores the guesses and pays the winners itself: 40% to the earliest
          correct response and 40% to the highest staked correct response. If nobody is correct, it returns every stake.
          Results are in My submissions, the Resolved Challenges tab and the Winners' Circle.
        </li>
      </ol>

      <h3>Follow Geopoem</h3>
      {links.length === 0 ? (
        <p>No social links are configured yet.</p>
      ) : (
        <ul className="social-links">
          {links.map(([key, url]) => (
            <li key={key}>
              <a href={url} target="_blank" rel="noopener noreferrer" className="button button-secondary">
                Geopoem on {platformName(key)}
              </a>
            </li>
          ))}
        </ul>
      )}

      <h3>Videos</h3>
      {videos.length === 0 ? (
        <p>No videos are configured yet.</p>
      ) : (
        <div className="videos">
          {videos.map((id, index) => (
            <Video key={id} id={id} title={`Geopoem video ${index + 1} of ${videos.length}`} />
          ))}
        </div>
      )}
    </section>
  );
}

/** The video's thumbnail on YouTube's image host: loading it tells whether the video host can be
 * reached at all (a cross-origin iframe's failure cannot be seen from the page). */
export const thumbnailUrl = (id: string) => `https://i.ytimg.com/vi/${id}/default.jpg`;
export const watchUrl = (id: string) => `https://www.youtube.com/watch?v=${id}`;

/** One embedded video. Behind the player sits a link to the video on YouTube, so the box is never
 * a blank black rectangle; when YouTube cannot be reached (a firewall, no internet, a blocker) the
 * player is dropped and the box says so, with the link. */
function Video({ id, title }: { id: string; title: string }) {
  const [unreachable, setUnreachable] = useState(false);
  useEffect(() => {
    const probe = new Image();
    probe.onerror = () => setUnreachable(true);
    probe.src = thumbnailUrl(id);
    return () => {
      probe.onerror = null;
    };
  }, [id]);
  return (
    <figure className="video-frame">
      <figcaption className="video-fallback">
        {unreachable ? <span>The video cannot be loaded here. </span> : null}
        <a href={watchUrl(id)} target="_blank" rel="noopener noreferrer">
          Watch {title.replace("Geopoem video", "video")} on YouTube
        </a>
      </figcaption>
      {unreachable ? null : (
        // youtube-nocookie: no tracking cookies until the visitor plays the video.
        <iframe
          src={`https://www.youtube-nocookie.com/embed/${id}`}
          title={title}
          loading="lazy"
          allow="accelerometer; clipboard-write; encrypted-media; gyroscope; picture-in-picture"
          allowFullScreen
          referrerPolicy="strict-origin-when-cross-origin"
        />
      )}
    </figure>
  );
}
