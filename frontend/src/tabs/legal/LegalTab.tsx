import type { ReactNode } from "react";
import { getPublicConfig } from "@/config";
import "./legal.css";

export interface LegalSection {
  title: string;
  body: ReactNode;
}

/** The eleven sections the spec lists, in its order, written for this product. */
export function legalSections(network: string): LegalSection[] {
  return [
    {
      title: "Intellectual Property",
      body: (
        <p>
          The Geopoem name, logo, poems, instructions, site design and software are the property of Geopoem and its
          licensors and are protected by copyright and other intellectual property laws. You may read and share links to
          the content for personal, non-commercial use. You may not copy, republish, sell or build derivative works from
          it without written permission.
        </p>
      ),
    },
    {
      title: "Use of the Platform",
      body: (
        <p>
          Geopoem is a game of skill in which you submit a location guess together with a stake paid from your own
          wallet. You are responsible for your wallet, its keys and every transaction you approve. Stakes are final and
          non-refundable, submitted solutions cannot be changed, and confirmed transactions are irreversible. During the
          beta the platform runs on the {network} test network with test tokens that have no monetary value.
        </p>
      ),
    },
    {
      title: "No Liability",
      body: (
        <p>
          The platform is provided "as is" and "as available", without warranties of any kind. To the fullest extent
          permitted by law, Geopoem is not liable for any loss arising from your use of the platform, including losses
          caused by wallet software, network congestion or failure, smart-contract or token behaviour, wrong addresses,
          lost keys, interruptions, errors in the content or the outcome of any challenge.
        </p>
      ),
    },
    {
      title: "Conduct",
      body: (
        <p>
          You agree not to interfere with the platform or other players: no attacks on the site or its servers, no
          automated abuse, no attempts to obtain solutions or other players' guesses before a challenge is resolved, no
          exploiting of bugs (please report them instead), and no use of the platform for fraud, money laundering or any
          other unlawful purpose. We may refuse service to anyone who breaks these rules.
        </p>
      ),
    },
    {
      title: "Privacy and Anonymity",
      body: (
        <p>
          Geopoem needs no account, name or e-mail address. It records what you submit and what the public blockchain
          already shows: your wallet address, your guess, your stake and your transaction. Guesses stay private until
          their challenge is resolved and are then published with the results. Your browser keeps your pending guesses
          and their salts in its local storage so that a paid guess is never lost. Blockchain transactions are public
          and permanent; using a wallet address does not make you anonymous to everyone.
        </p>
      ),
    },
    {
      title: "Dispute Resolution by Confidential Online Arbitration",
      body: (
        <p>
          Any dispute arising from or relating to these terms or the platform will first be raised with us in writing so
          that we can try to resolve it informally. If it is not resolved within 30 days, it will be settled by binding,
          confidential arbitration conducted online by a single arbitrator, in English, and not in court. You agree to
          bring claims only in your individual capacity and not as part of any class or representative action.
        </p>
      ),
    },
    {
      title: "Content Disclaimer",
      body: (
        <p>
          Poems, hints and instructions are creative works for entertainment. They may be ambiguous or contain errors,
          and places they describe may be private, dangerous or restricted. Never visit a location to play, and never
          rely on the content for navigation, safety or any other purpose. The published solution and its commitment
          decide every challenge.
        </p>
      ),
    },
    {
      title: "Right to Modify Terms",
      body: (
        <p>
          We may change these terms, the rules of future challenges and the platform itself at any time. Changes are
          published on this page and apply from their publication; challenges already open keep the rules under which
          they were opened. Continuing to use the platform after a change means you accept the new terms.
        </p>
      ),
    },
    {
      title: "No Advice",
      body: (
        <p>
          Nothing on Geopoem is financial, investment, legal or tax advice. Crypto assets are volatile and risky. Make
          your own decisions and seek independent professional advice where you need it.
        </p>
      ),
    },
    {
      title: "Eligibility: 18 or Older",
      body: (
        <p>
          You must be at least 18 years old, and of legal age in your jurisdiction if that is higher, to use the
          platform or submit a stake. By playing you confirm that you meet this requirement.
        </p>
      ),
    },
    {
      title: "Local Crypto Compliance and Risk",
      body: (
        <p>
          You are solely responsible for making sure that holding and transferring crypto assets and taking part in
          games with stakes are lawful where you live, and for any taxes due. Do not use the platform where it is
          prohibited. You accept the risks of blockchain technology, including software bugs, network failures, forks,
          changes in regulation and the total loss of assets sent by mistake.
        </p>
      ),
    },
  ];
}

/** The Legal & Terms tab: the spec's eleven numbered sections and the important notice. */
export function LegalTab() {
  const network = getPublicConfig().chainName || "test";
  const sections = legalSections(network);
  return (
    <section className="tab-section legal-tab" aria-labelledby="legal-heading">
      <h2 id="legal-heading">Legal &amp; Terms</h2>
      <p className="tab-intro">
        These terms govern your use of Geopoem. By connecting a wallet or submitting a solution you agree to them.
      </p>
      <ol className="legal-sections">
        {sections.map((section, index) => (
          <li key={section.title}>
            <h3>
              {index + 1}. {section.title}
            </h3>
            {section.body}
          </li>
        ))}
      </ol>
      <aside className="legal-notice" aria-labelledby="legal-notice-heading">
        <h3 id="legal-notice-heading">Important Notice</h3>
        <p>
          Stakes are final and non-refundable. Submitted solutions cannot be changed. Confirmed transactions are
          irreversible. The wallet address that signs a submission receives any payout. You must be 18 or older to play.
          During the beta Geopoem runs on the {network} test network with fake money; real money on the main network
          will replace it after the beta.
        </p>
      </aside>
    </section>
  );
}
