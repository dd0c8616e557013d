import { explorerLink, getPublicConfig } from "@/config";
import "./sepolia.css";

/** Faucets are content, not configuration: they are Sepolia's, as the guide is. */
export const ETH_FAUCET_URL = "https://cloud.google.com/application/web3/faucet/ethereum/sepolia";
export const USDC_FAUCET_URL = "https://faucet.circle.com/";

/** The Sepolia Testnet tab (spec section 2): a four-step wallet setup guide and the token's
 * details. Every network value comes from the page's public config, so the guide follows a
 * settings change (a new RPC, another network after the beta) without a new bundle. */
export function SepoliaTab() {
  const config = getPublicConfig();
  const { chainName, chainId, chainIdHex, rpcUrl, explorerUrl, nativeCurrency, usdcAddress, tokenDecimals } = config;

  return (
    <section className="tab-section sepolia-tab" aria-labelledby="sepolia-heading">
      <h2 id="sepolia-heading">{chainName} Testnet Setup</h2>
      <p className="tab-intro">
        During the beta Geopoem runs on the {chainName} test network. Its ETH and USDC are free test tokens with no
        value, so you can play without risking real money. Four steps get your wallet ready.
      </p>

      <ol className="guide">
        <li>
          <h3>Step 1: Configure your wallet for the {chainName} test network</h3>
          <p>
            When you submit a solution, Geopoem asks your wallet to switch to {chainName} and offers to add the network
            if your wallet does not know it. To add it yourself, open your wallet's network settings, choose to add a
            network manually and enter:
          </p>
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
            <dd className="mono">
              <a href={explorerUrl} target="_blank" rel="noopener noreferrer">
                {explorerUrl}
              </a>
            </dd>
          </dl>
          <p className="hint">
            In MetaMask you may first need to turn on "Show test networks" in the network list.
          </p>
        </li>
        <li>
          <h3>Step 2: Import the USDC test token</h3>
          <p>
            Your wallet shows USDC only after you import it. Choose "Import tokens", select the {chainName} network and
            paste this contract address; the symbol and decimals fill in by themselves:
          </p>
          <dl className="fields">
            <dt>Token contract address</dt>
            <dd className="mono">{usdcAddress}</dd>
            <dt>Token symbol</dt>
            <dd>USDC</dd>
            <dt>Token decimals</dt>
            <dd>{tokenDecimals}</dd>
          </dl>
        </li>
        <li>
          <h3>Step 3: Get test ETH from a cloud faucet</h3>
          <p>
            Every transaction costs a little ETH for gas, even when you send USDC. Google Cloud's Web3 faucet sends
            free {nativeCurrency.symbol} to your address once a day:{" "}
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

      <h3>Token information</h3>
      <dl className="fields token-info">
        <dt>Token</dt>
        <dd>USD Coin (USDC), test version</dd>
        <dt>Network</dt>
        <dd>
          {chainName} (chain ID {chainId})
        </dd>
        <dt>Contract</dt>
        <dd className="mono">
          <a href={explorerLink("address", usdcAddress, config)} target="_blank" rel="noopener noreferrer">
            {usdcAddress}
          </a>
        </dd>
        <dt>Decimals</dt>
        <dd>{tokenDecimals} (1.00 USDC is {(10 ** tokenDecimals).toLocaleString("en-US")} token units)</dd>
        <dt>Minimum stake</dt>
        <dd>{config.minStake} USDC</dd>
        <dt>Gas</dt>
        <dd>Paid in {nativeCurrency.name} ({nativeCurrency.symbol}), {nativeCurrency.decimals} decimals</dd>
      </dl>
    </section>
  );
}
