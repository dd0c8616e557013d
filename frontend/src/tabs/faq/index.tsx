import type { ReactNode } from "react";
import { getPublicConfig, type PublicConfig } from "@/config";
import "./faq.css";

export interface FaqEntry {
  question: string;
  answer: ReactNode;
}

export interface FaqGroup {
  title: string;
  entries: FaqEntry[];
}

/** The questions, written for this product (rules from docs/protocol.md sections 1, 2 and 4). Network names and
 * limits come from the public config so the answers stay true after a settings change. */
export function faqGroups(config: PublicConfig): FaqGroup[] {
  const network = config.chainName || "test";
  return [
    {
      title: "Playing",
      entries: [
        {
          question: "What is Geopoem?",
          answer: (
            <p>
              A guessing game. Each challenge is a cryptic poem that describes one place on Earth. You work out where it
              is, submit its latitude and longitude, and back your guess with a USDC stake. When the challenge is
              resolved, the solution is revealed and the pot is shared between the best correct guesses.
            </p>
          ),
        },
        {
          question: "How do I play?",
          answer: (
            <ol>
              <li>Set up a browser wallet with test ETH and test USDC (see the Sepolia Testnet tab).</li>
              <li>Read the poem and instructions in the Active Challenge tab.</li>
              <li>
                Enter your guess as "latitude, longitude", for example 29.979175, 31.134258, and a stake of at least{" "}
                {config.minStake} USDC.
              </li>
              <li>
                Press Submit Your Solution &amp; Pay Your Bid, check the confirmation, then choose your account and
                approve the USDC transfer in your wallet.
              </li>
              <li>Wait for the reveal: results appear in the Resolved Challenges tab and the Winners' Circle.</li>
            </ol>
          ),
        },
        {
          question: "What format do coordinates need?",
          answer: (
            <p>
              Two decimal numbers separated by a comma: latitude from -90 to 90, then longitude from -180 to 180. Each
              number keeps at most 6 decimals (about 11 cm); extra digits are cut off, never rounded, so 48.85837009,
              2.2944813 is recorded as 48.85837, 2.294481.
            </p>
          ),
        },
        {
          question: "Can I change or cancel a guess?",
          answer: (
            <p>
              No. Submitted solutions cannot be changed, stakes are final and non-refundable, and confirmed transactions
              are irreversible. You may submit further guesses, each with its own stake. If you reject the transaction
              in your wallet, nothing is recorded and nothing is paid.
            </p>
          ),
        },
        {
          question: "Is this real money?",
          answer: (
            <p>
              Not during the beta. Geopoem runs on the {network} test network, where ETH and USDC are free test tokens
              with no value. Real money on the main network will replace this after the beta.
            </p>
          ),
        },
      ],
    },
    {
      title: "Prizes",
      entries: [
        {
          question: "How is the prize pot split?",
          answer: (
            <>
              <p>The pot is the total of all confirmed stakes on the challenge:</p>
              <ul>
                <li>40% to the earliest correct response,</li>
                <li>40% to the highest staked correct response,</li>
                <li>20% to site operations and student donations.</li>
              </ul>
              <p>
                Prizes are paid in USDC to the wallet address that paid the stake and are shown with 2 decimals; each
                share is rounded down to the token's smallest unit.
              </p>
            </>
          ),
        },
        {
          question: "When is a guess correct?",
          answer: (
            <p>
              When its great-circle distance to the revealed solution, measured on a sphere with a radius of 6,371,000
              m, is at most the challenge's proximity threshold. A challenge whose threshold is "Not specified" only
              accepts an exact hit.
            </p>
          ),
        },
        {
          question: "Who is the earliest correct response?",
          answer: (
            <p>
              The correct response whose payment came first in chain order: the lowest block number, then the lowest
              position within that block. Clocks play no part, neither yours nor the server's, so nobody can claim to be
              earlier than the blockchain says.
            </p>
          ),
        },
        {
          question: "What if two correct responses have the same highest stake?",
          answer: <p>The tie goes to the earliest of them, in the same chain order.</p>,
        },
        {
          question: "Can one response win both prizes?",
          answer: (
            <p>
              Yes. If the earliest correct response also has the highest stake among the correct ones, its wallet
              receives both 40% shares.
            </p>
          ),
        },
        {
          question: "What happens if nobody is correct?",
          answer: (
            <p>
              No prize is due, and the Winners' Circle says "No correct responses found for this challenge." Stakes are
              final and are not refunded.
            </p>
          ),
        },
      ],
    },
    {
      title: "Payments",
      entries: [
        {
          question: "How are payments verified?",
          answer: (
            <>
              <p>
                Your stake is an ordinary USDC transfer to the Geopoem treasury. After you submit, your guess is pending
                until the server has read the transaction and its receipt from the blockchain and checked that:
              </p>
              <ul>
                <li>the transaction succeeded and is buried under enough blocks;</li>
                <li>it called the USDC contract directly, sent no ETH and came from the wallet named in the claim;</li>
                <li>it transferred exactly the stake to the treasury, and the USDC contract logged that transfer;</li>
                <li>its data carries the commitment of your guess and the challenge number;</li>
                <li>it was mined while the challenge was open, and no other guess uses it.</li>
              </ul>
              <p>
                Only then does the guess count as confirmed and its stake join the pot; otherwise it is rejected with
                the reason. Payments sent through a smart-contract wallet or a router cannot be checked this way and are
                rejected.
              </p>
            </>
          ),
        },
        {
          question: "Where can I see the status of my guess?",
          answer: (
            <p>
              The My submissions panel lists the guesses made from this browser with their status (pending, confirmed or
              rejected) and a link to each transaction on the block explorer.
            </p>
          ),
        },
        {
          question: "What if my browser closes after I have paid?",
          answer: (
            <p>
              Nothing is lost. The page keeps your pending guess in this browser and sends it again the next time you
              open Geopoem. The server also records every USDC payment to the treasury, so a paid guess can be claimed
              later with its transaction. Keep the offline record the confirmation offers: it holds your coordinates,
              salt, challenge and stake.
            </p>
          ),
        },
        {
          question: "Can I play on my phone?",
          answer: (
            <p>
              Yes, inside a wallet app. Phone browsers have no wallet extensions, so install the MetaMask app and open
              Geopoem in its built-in browser. When this page finds no wallet on a phone, it shows an "Open in MetaMask"
              link that opens the game there (MetaMask's link https://metamask.app.link/dapp/ followed by this page's
              address).
            </p>
          ),
        },
        {
          question: "Why do I need ETH if I pay in USDC?",
          answer: (
            <p>
              Every transaction on the network pays a small gas fee in its native currency (
              {config.nativeCurrency.symbol} during the beta). The stake itself is paid in USDC.
            </p>
          ),
        },
      ],
    },
    {
      title: "Fairness and checking",
      entries: [
        {
          question: "Can anyone see my guess on the blockchain?",
          answer: (
            <p>
              No. Your transaction carries only a commitment: the SHA-256 hash of your guess together with a random
              32-byte salt that your browser generates and keeps, the chain, the challenge and your address. Without the
              salt the hash cannot be reversed, even by trying every point of a small area. Guesses are shown publicly
              only after the challenge is resolved.
            </p>
          ),
        },
        {
          question: "How can I check that the solution was not changed?",
          answer: (
            <>
              <p>
                The SHA-256 hash of the solution is published with the challenge before anyone plays. At the reveal, the
                solution and its salt are published too. The hash is computed over the text
              </p>
              <pre className="mono">{"geopoem:solution:v1|{challenge id}|{solution}|{salt}"}</pre>
              <p>
                In the Resolved Challenges tab, open a challenge and press Recompute SHA-256 in this browser: your
                browser hashes the revealed text and salt itself and says whether the result equals the published hash.
                You can also do it in a terminal, for example:
              </p>
              <pre className="mono">
                {"printf '%s' 'geopoem:solution:v1|1|29.979175, 31.134258|<salt>' | sha256sum"}
              </pre>
              <p>If the hashes match, the solution was fixed before the first guess.</p>
            </>
          ),
        },
        {
          question: "How can I check my own guess's commitment?",
          answer: (
            <>
              <p>With the salt from your offline record, hash the text</p>
              <pre className="mono">
                {"geopoem:guess:v1|{chain id}|{challenge id}|{your address in lowercase}|{guess}|{salt}"}
              </pre>
              <p>
                with SHA-256 and compare it with the third 32-byte word after the function selector in your
                transaction's input data on the block explorer. The chain id here is {config.chainId}.
              </p>
            </>
          ),
        },
        {
          question: "Who can play?",
          answer: (
            <p>
              Anyone aged 18 or older, where taking part is legal for them, with a browser wallet. No account or login
              is needed: your wallet address is your identity and receives any prize.
            </p>
          ),
        },
      ],
    },
  ];
}

/** The FAQ tab: questions grouped by topic, each a native disclosure (keyboard and screen-reader
 * friendly without script). */
export function FaqTab() {
  const groups = faqGroups(getPublicConfig());
  return (
    <section className="tab-section faq-tab" aria-labelledby="faq-heading">
      <h2 id="faq-heading">Frequently Asked Questions</h2>
      {groups.map((group) => (
        <div key={group.title} className="faq-group">
          <h3>{group.title}</h3>
          {group.entries.map((entry) => (
            <details key={entry.question} className="faq-item">
              <summary>{entry.question}</summary>
              <div className="faq-answer">{entry.answer}</div>
            </details>
          ))}
        </div>
      ))}
    </section>
  );
}
