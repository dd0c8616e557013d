import { useQuery } from "@tanstack/react-query";
import { paymentsAuthorizationQuery, signatureOffered } from "@/api/queries";
import { ExplorerLink } from "@/components/ExplorerLink";
import { getPublicConfig, type PublicConfig } from "@/config";
import "./sepolia.css";

/** What a player needs on each way into the pot (docs/protocol.md section 2, "Stakes"): where
 * Geopoem's relay sends signed stakes, only test USDC; ETH for gas only to pay by approval (or to
 * send a signed stake yourself). Read from GET /api/payments/authorization, as the confirm dialog does. */
export const SIGNATURE_NEEDS = {
  ethStep: " (only to pay by approval)",
  ethNote: "When you pay by signature, Geopoem's relayer pays the gas: you need only test USDC.",
  intro:
    "To pay by signature you need only test USDC (steps 1, 2 and 4); step 3's ETH is for paying from your wallet by approval.",
  gas: "; none when you pay by signature (Geopoem's relayer pays it)",
  local: "Paying by signature needs only the test USDC: Geopoem's relayer pays the gas.",
} as const;

/** Where the stakes go, the same on every chain. */
export const POT_NOTE =
  "Every stake goes into the Geopoem pot, a contract that holds the stakes and pays the winners and refunds itself: nobody, Geopoem included, can take a stake out of it. You can pay into it by signature (USDC only: Geopoem's relayer sends it) or by approval (USDC, and ETH for gas: your wallet sends it).";

function useSignatureOffered(): boolean {
  return signatureOffered(useQuery(paymentsAuthorizationQuery()).data);
}

/** Faucets are content, not configuration: they are Sepolia's, as the guide is. */
export const ETH_FAUCET_URL = "https://cloud.google.com/application/web3/faucet/ethereum/sepolia";
export const USDC_FAUCET_URL = "https://faucet.circle.com/";

/** anvil's (and Hardhat's) development account #0 of the public test mnemonic "test test ... junk":
 * public knowledge, worthless outside a local node; `make run` funds it (scripts/devchain.py) and
 * prints the same key. Shown only on a local chain. */
export const DEV_ACCOUNT_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
export const DEV_ACCOUNT_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/** The Sepolia Testnet tab: a four-step wallet setup guide and the token's
 * details. Every network value comes from the page's public config, so the guide follows a
 * settings change (a new RPC, another network after the beta) without a new bundle. On a local
 * development chain (`make run`) Sepolia's faucets cannot help: the tab gives the local set-up. */
export function SepoliaTab() {
  const config = getPublicConfig();
  const signature = useSignatureOffered();
  return config.localChain ? (
    <LocalChainGuide config={config} signature={signature} />
  ) : (
    <SepoliaGuide config={config} signature={signature} />
  );
}

/** What a wallet's "Import tokens" asks for, the same on Sepolia and on a local chain. */
function TokenImportFields({ config }: { config: PublicConfig }) {
  return (
    <dl className="fields">
      <dt>Token contract address</dt>
      <dd className="mono break">{config.usdcAddress}</dd>
      <dt>Token symbol</dt>
      <dd>USDC</dd>
      <dt>Token decimals</dt>
      <dd>{config.tokenDecimals}</dd>
    </dl>
  );
}

/** The values a wallet asks for when a network is added by hand. A chain without a block explorer
 * (a local one) says to leave that field empty. */
function NetworkFields({ config }: { config: PublicConfig }) {
  const { chainName, chainId, chainIdHex, rpcUrl, explorerUrl, nativeCurrency } = config;
  return (
    <dl className="fields">
      <dt>Network name</dt>
      <dd>{chainName}</dd>
      <dt>RPC URL</dt>
      <dd className="mono">{rpcUrl}</dd>
      <dt>Chain ID</dt>
      <dd>
        {chainId} <span className="muted">({chainIdHex})</span>
      </dd>
      <dt>Currency symbol</dt>
      <dd>{nativeCurrency.symbol}</dd>
      <dt>Block explorer URL</dt>
      {explorerUrl ? (
        <dd className="mono">
          <a href={explorerUrl} target="_blank" rel="noopener noreferrer">
            {explorerUrl}
          </a>
        </dd>
      ) : (
        <dd>None (leave it empty)</dd>
      )}
    </dl>
  );
}

function SepoliaGuide({ config, signature }: { config: PublicConfig; signature: boolean }) {
  const { chainName, nativeCurrency } = config;

  return (
    <section className="tab-section sepolia-tab" aria-labelledby="sepolia-heading">
      <h2 id="sepolia-heading">{chainName} Testnet Setup</h2>
      <p className="tab-intro">
        During the beta Geopoem runs on the {chainName} test network. Its ETH and USDC are free test tokens with no
        value, so you can play without risking real money. Four steps get your wallet ready.
        {signature ? ` ${SIGNATURE_NEEDS.intro}` : null}
      </p>

      <ol className="guide">
        <li>
          <h3>Step 1: Configure your wallet for the {chainName} test network</h3>
          <p>
            When you submit a solution, Geopoem asks your wallet to switch to {chainName} and offers to add the network
            if your wallet does not know it. To add it yourself, open your wallet's network settings, choose to add a
            network manually and enter:
          </p>
          <NetworkFields config={config} />
          <p className="hint">In MetaMask you may first need to turn on "Show test networks" in the network list.</p>
        </li>
        <li>
          <h3>Step 2: Import the USDC test token</h3>
          <p>
            Your wallet shows USDC only after you import it. Choose "Import tokens", select the {chainName} network and
            paste this contract address; the symbol and decimals fill in by themselves:
          </p>
          <TokenImportFields config={config} />
        </li>
        <li>
          <h3>
            Step 3: Get test ETH from a cloud faucet
            {signature ? SIGNATURE_NEEDS.ethStep : null}
          </h3>
          {signature ? <p className="hint">{SIGNATURE_NEEDS.ethNote}</p> : null}
          <p>
            Every transaction your wallet sends costs a little ETH for gas, even when it sends USDC. Google Cloud's Web3
            faucet sends free {nativeCurrency.symbol} to your address once a day:{" "}
            <a href={ETH_FAUCET_URL} target="_blank" rel="noopener noreferrer">
              open the Google Cloud Sepolia faucet
            </a>
            , paste your wallet address and request the test ETH.
          </p>
        </li>
        <li>
          <h3>Step 4: Get test USDC from a stablecoin issuer's faucet</h3>
          <p>
            Circle, the issuer of USDC, runs a faucet for its test token:{" "}
            <a href={USDC_FAUCET_URL} target="_blank" rel="noopener noreferrer">
              open Circle's USDC faucet
            </a>
            , choose USDC on Ethereum Sepolia, paste your wallet address and send. The tokens appear in your wallet
            under the token you imported in step 2.
          </p>
        </li>
      </ol>

      <TokenInformation config={config} signature={signature} />
    </section>
  );
}

function TokenInformation({ config, signature }: { config: PublicConfig; signature: boolean }) {
  const { chainName, chainId, nativeCurrency, usdcAddress, tokenDecimals, potAddress } = config;
  return (
    <>
      <h3>Token information</h3>
      <p className="hint">{POT_NOTE}</p>
      <dl className="fields token-info">
        <dt>Token</dt>
        <dd>USD Coin (USDC), test version</dd>
        <dt>Network</dt>
        <dd>
          {chainName} (chain ID {chainId})
        </dd>
        <dt>Contract</dt>
        <dd className="mono">
          <ExplorerLink kind="address" value={usdcAddress} />
        </dd>
        <dt>Decimals</dt>
        <dd>
          {tokenDecimals} (1.00 USDC is {(10 ** tokenDecimals).toLocaleString("en-US")} token units)
        </dd>
        <dt>Minimum stake</dt>
        <dd>{config.minStake} USDC (a challenge may ask for more)</dd>
        <dt>Geopoem pot</dt>
        <dd className="mono">
          <ExplorerLink kind="address" value={potAddress} />
        </dd>
        <dt>Gas</dt>
        <dd>
          Paid in {nativeCurrency.name} ({nativeCurrency.symbol}), {nativeCurrency.decimals} decimals
          {signature ? SIGNATURE_NEEDS.gas : null}
        </dd>
      </dl>
    </>
  );
}

/** A local development chain (anvil under `make run`): its ETH and USDC exist only on this
 * machine, so the faucets and the public explorer of Sepolia cannot help. The README's MetaMask
 * steps, with this page's own network values. */
function LocalChainGuide({ config, signature }: { config: PublicConfig; signature: boolean }) {
  const { chainName, chainId } = config;
  return (
    <section className="tab-section sepolia-tab" aria-labelledby="sepolia-heading">
      <h2 id="sepolia-heading">Playing on {chainName}, a development chain on this computer</h2>
      <p className="tab-intro">
        This Geopoem runs on {chainName}, a development chain on this computer (chain ID {chainId}), not on the Sepolia
        test network. Its ETH and USDC exist only here: Sepolia's faucets cannot fund it and no public block explorer
        knows its transactions, so the page shows transaction hashes and addresses without links. Three steps get
        MetaMask ready.
      </p>

      <ol className="guide">
        <li>
          <h3>Step 1: Add the {chainName} network to MetaMask</h3>
          <p>
            In MetaMask open Settings, then Networks, then "Add a network manually", and enter these values. (Geopoem
            also offers to add the network when you pay.)
          </p>
          <NetworkFields config={config} />
        </li>
        <li>
          <h3>Step 2: Import a development account</h3>
          <p>
            The local chain starts with development accounts that already hold test ETH and test USDC. In MetaMask
            choose "Add account", then "Import account", and paste the private key of development account #0:
          </p>
          {signature ? <p className="hint">{SIGNATURE_NEEDS.local}</p> : null}
          <dl className="fields">
            <dt>Private key</dt>
            <dd className="mono break">{DEV_ACCOUNT_KEY}</dd>
            <dt>Account</dt>
            <dd className="mono break">{DEV_ACCOUNT_ADDRESS}</dd>
          </dl>
          <p className="hint">
            This key is public: every copy of the development chain uses it. Use it only on this local network and never
            send real funds to it. If the local chain is started afresh, use MetaMask's "Clear activity tab data" for
            the account so that its transaction count starts over too.
          </p>
        </li>
        <li>
          <h3>Step 3: Import the test USDC token</h3>
          <p>
            In MetaMask choose "Import tokens" on the {chainName} network and paste this contract address; the symbol
            and decimals fill in by themselves:
          </p>
          <TokenImportFields config={config} />
        </li>
      </ol>

      <TokenInformation config={config} signature={signature} />
    </section>
  );
}
