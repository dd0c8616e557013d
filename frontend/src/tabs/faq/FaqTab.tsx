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

/** The network the page is on, as the answers name it: a local development chain is not a test
 * network anyone else can reach. */
function networkName(config: PublicConfig): string {
  const name = config.chainName || "test";
  return config.localChain ? `${name} development chain on this computer` : `${name} test network`;
}

/** The questions, written for this product (rules from docs/protocol.md sections 1, 2 and 4). Network
 * names, addresses and limits come from the public config so the answers stay true after a settings
 * change and say what the chain the page is on has (a local chain has no block explorer). */
export function faqGroups(config: PublicConfig): FaqGroup[] {
  const network = networkName(config);
  const gas = config.nativeCurrency.symbol;
  const explorer = Boolean(config.explorerUrl);
  return [
    {
      title: "Playing",
      entries: [
        {
          question: "What is Geopoem?",
          answer: (
            <p>
              A guessing game. Each challenge is a cryptic poem that describes one place on Earth. You work out where it
              is, submit its latitude and longitude, and back your guess with a USDC stake. Every stake goes into the
              Geopoem pot, a contract on the blockchain; when the solution is revealed, the pot scores the guesses and
              pays the best correct ones itself.
            </p>
          ),
        },
        {
          question: "How do I play?",
          answer: (
            <ol>
              <li>
                Set up a browser wallet with test USDC (the Sepolia Testnet tab shows how on the {network}). Test {gas}{" "}
                is needed only if you pay from your wallet by approval.
              </li>
              <li>Read the poem and instructions in the Active Challenge tab.</li>
              <li>
                Enter your guess as "latitude, longitude", for example 29.979175, 31.134258, and a stake of at least{" "}
                {config.minStake} USDC (a challenge may ask for more: its card says so).
              </li>
              <li>
                Press Submit Your Solution &amp; Pay Your Bid, check the confirmation and choose how to pay: sign the
                stake (no ETH needed: Geopoem's relayer puts it into the pot), or approve the USDC and send the stake
                from your wallet (you pay the gas in {gas}). Then choose your account in your wallet.
              </li>
              <li>
                Follow your stake in My submissions. Once the solution is revealed, results appear there, in the
                Resolved Challenges tab and in the Winners' Circle.
              </li>
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
              No. Submitted solutions cannot be changed and confirmed transactions are irreversible. Stakes are final:
              nobody can take a stake out of the pot, you included. The pot returns a stake only when nobody guesses
              correctly or the solution is not revealed in time. You may submit further guesses, each with its own
              stake. If you refuse the signature or the transaction in your wallet, nothing is recorded and nothing is
              paid.
            </p>
          ),
        },
        {
          question: "Is this real money?",
          answer: (
            <p>
              Not during the beta. Geopoem runs on the {network}, where ETH and USDC are test tokens with no value. Real
              money on the main network will replace this after the beta.
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
              <p>The pot is the total of all stakes on the challenge:</p>
              <ul>
                <li>40% to the earliest correct response,</li>
                <li>40% to the highest staked correct response,</li>
                <li>20% to site operations and student donations.</li>
              </ul>
              <p>
                The pot pays the prizes itself, in USDC, to the wallet that paid the stake; nobody needs to claim them.
                They are shown with 2 decimals; each prize is rounded down to the token's smallest unit, and the 20%
                share takes the remainder, so nothing is left over.
              </p>
            </>
          ),
        },
        {
          question: "When is a guess correct?",
          answer: (
            <p>
              When its great-circle distance to the revealed solution, on a sphere with a radius of 6,371,000 m, is at
              most the challenge's proximity threshold. The pot decides it on the blockchain with an exact integer test
              (the straight line between the two points against the one of the threshold), which gives the same answer;
              the distance shown beside it is the great-circle one. A challenge whose threshold is "Not specified" only
              accepts an exact hit.
            </p>
          ),
        },
        {
          question: "Who is the earliest correct response?",
          answer: (
            <p>
              The correct response whose stake entered the pot first: each stake gets the next sequence number when the
              pot takes it, in the blockchain's order. Clocks play no part, neither yours nor the server's, so nobody
              can claim to be earlier than the pot says.
            </p>
          ),
        },
        {
          question: "What if two correct responses have the same highest stake?",
          answer: <p>The tie goes to the earliest of them, in the same order.</p>,
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
          question: "How are guesses revealed and scored?",
          answer: (
            <p>
              After the close the solution is revealed into the pot, which checks it against the hash fixed before
              anyone staked. A guess window follows, in which guesses are revealed into the pot and scored there.
              Geopoem reveals the winning guesses it holds; if your correct guess would beat a winner and is not
              revealed yet, My submissions offers "Reveal my guess", through Geopoem or from your own wallet.
            </p>
          ),
        },
        {
          question: "What happens if nobody is correct?",
          answer: (
            <p>
              No prize is due, and the Winners' Circle says "No correct responses found for this challenge." The pot
              returns every stake to the wallet that paid it; the operator's share is nothing.
            </p>
          ),
        },
        {
          question: "What if the solution is never revealed?",
          answer: (
            <p>
              If it is not revealed by the deadline fixed when the challenge opened, every stake is refunded by the pot,
              with a share of the bond the operator posted at the opening, in proportion to the stake.
            </p>
          ),
        },
      ],
    },
    {
      title: "Payments",
      entries: [
        {
          question: "How do I pay, and where does my stake go?",
          answer: (
            <>
              <p>
                Every stake goes into the Geopoem pot, a contract on the blockchain at{" "}
                <span className="mono break">{config.potAddress}</span>. The pot cannot be changed or paused, and no
                key, Geopoem's included, can take a stake out of it: it only pays the winners, returns refunds, and pays
                the 20% share. Two ways in:
              </p>
              <ul>
                <li>
                  <strong>By signature</strong> (USDC only): your wallet signs a payment of exactly your stake into the
                  pot for this guess; Geopoem's relayer sends it and pays the gas. It cannot change the amount, the
                  guess or where the money goes. If it does not send it within a minute, you can send it yourself (that
                  needs a little {gas}).
                </li>
                <li>
                  <strong>By approval</strong> (USDC and {gas}): your wallet allows the pot to take the stake, then
                  sends it. For wallets that cannot sign, or when the relayer is unavailable.
                </li>
              </ul>
              <p>
                Your guess itself is not sent with the payment: only a hash of it. Your browser keeps the guess and
                sends it to Geopoem once the stake is in the pot.
              </p>
            </>
          ),
        },
        {
          question: "Where can I see the status of my guess?",
          answer: (
            <p>
              The My submissions panel lists the stakes made from this browser (and, with your wallet connected, those
              made from another) with their status: relaying, in the pot, confirmed; whether Geopoem holds your guess;
              and, once the solution is revealed, whether it is correct and what the pot paid you.
              {explorer
                ? " Each transaction links to the block explorer."
                : " This chain has no public block explorer, so transactions are shown by their hash."}
            </p>
          ),
        },
        {
          question: "What if my browser closes after I have signed or paid?",
          answer: (
            <p>
              Nothing is lost. The page keeps your guess in this browser before your wallet is asked, and on your next
              visit it carries on: it sends a signed stake to Geopoem again, and your guess once the stake is in the
              pot. A stake in the pot counts whether or not Geopoem ever gets the guess. Keep the offline record the
              confirmation offers: it holds your coordinates, salt, challenge and stake.
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
          question: "Do I need ETH if I pay in USDC?",
          answer: (
            <p>
              Not to pay by signature: Geopoem's relayer pays the gas. Every transaction your own wallet sends pays a
              small gas fee in the network's currency ({gas} during the beta): paying by approval, sending a signed
              stake yourself, or revealing your guess yourself. The stake itself is always paid in USDC.
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
              No. The pot records only a commitment: the SHA-256 hash of your guess together with a random 32-byte salt
              that your browser generates and keeps, the chain, the pot, the challenge and your address. Without the
              salt the hash cannot be reversed, even by trying every point of a small area. Geopoem receives your guess
              only once your stake is in the pot, and shows guesses only after the solution is revealed.
            </p>
          ),
        },
        {
          question: "How can I check that the solution was not changed?",
          answer: (
            <>
              <p>
                The SHA-256 hash of the solution is fixed in the pot before anyone stakes, and the pot refuses a reveal
                that does not match it. The hash is computed over the ABI encoding of
              </p>
              <pre className="mono">
                {'(bytes32 "geopoem:solution:v2", chain id, pot, challenge id, latitude × 10⁶, longitude × 10⁶, salt)'}
              </pre>
              <p>
                In the Resolved Challenges tab, open a challenge and press Recompute SHA-256 in this browser: your
                browser hashes the revealed solution and salt itself and says whether the result equals the published
                hash. The pot's own solutionCommitment function computes the same with any node.
              </p>
            </>
          ),
        },
        {
          question: "How can I check my own guess's commitment?",
          answer: (
            <>
              <p>With the salt from your offline record, the commitment is SHA-256 of the ABI encoding of</p>
              <pre className="mono">
                {
                  '(bytes32 "geopoem:guess:v2", chain id, pot, challenge id, your address, latitude × 10⁶, longitude × 10⁶, salt)'
                }
              </pre>
              <p>
                It is the commitment of your stake's Staked event in the pot; the pot's guessCommitment function
                computes it with any node. The chain id here is {config.chainId}.
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
