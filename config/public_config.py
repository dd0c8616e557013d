"""The public part of the settings, embedded in the page as JSON so the bundle hard-codes no
address or chain: switching networks is a settings change."""

from django.conf import settings


def _confirmations() -> int:
    value = str(settings.CHAIN_CONFIRMATIONS).strip()
    return int(value) if value.isdigit() else 0


def public_config() -> dict:
    return {
        "chainId": settings.CHAIN_ID,
        "chainIdHex": hex(settings.CHAIN_ID),
        "chainName": settings.CHAIN_NAME,
        "nativeCurrency": {
            "name": settings.CHAIN_CURRENCY_NAME,
            "symbol": settings.CHAIN_CURRENCY_SYMBOL,
            "decimals": 18,
        },
        "rpcUrl": settings.CHAIN_PUBLIC_RPC_URL,
        "explorerUrl": settings.CHAIN_EXPLORER_URL.rstrip("/"),
        "localChain": settings.CHAIN_IS_LOCAL,
        "usdcAddress": settings.USDC_ADDRESS,
        # The pot (docs/protocol.md section 2) and the block it was deployed in: the page reads its
        # terms and events from there, and holds it to the address pinned in its own code.
        "potAddress": settings.POT_ADDRESS or None,
        "potDeployBlock": settings.POT_DEPLOY_BLOCK,
        "tokenDecimals": settings.TOKEN_DECIMALS,
        "minStake": str(settings.STAKE_MIN),
        "stakeStep": str(settings.STAKE_STEP),
        "maxStake": str(settings.STAKE_MAX),
        # The page stops offering stakes this long before a challenge's close (a stake mined after it
        # would revert).
        "stakeCloseMarginSeconds": settings.STAKE_CLOSE_MARGIN_SECONDS,
        "receiptPollIntervalMs": 2000,
        "receiptTimeoutMs": 60000,
        # A stake is confirmed this many blocks deep; the page follows it through the player's
        # wallet and sends its guess then. 0 when CHAIN_CONFIRMATIONS is "finalized".
        "confirmations": _confirmations(),
        "socialLinks": settings.SOCIAL_LINKS,
        "videoIds": settings.VIDEO_IDS,
        "mapTilesUrl": settings.MAP_TILES_URL,
        "mapAttribution": settings.MAP_ATTRIBUTION,
    }
