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
        "treasuryAddress": settings.TREASURY_ADDRESS,
        # Where the 20 % operations share is paid; null: it is kept in the treasury (a verifier checks
        # the operations payout against it, docs/protocol.md section 6).
        "operationsAddress": settings.OPERATIONS_ADDRESS or None,
        # The terms registry (docs/protocol.md section 6); null when unset (no challenge can open
        # then, except a demonstration one).
        "registryAddress": settings.ANCHOR_REGISTRY_ADDRESS or None,
        "tokenDecimals": settings.TOKEN_DECIMALS,
        "minStake": str(settings.STAKE_MIN),
        "stakeStep": str(settings.STAKE_STEP),
        "maxStake": str(settings.STAKE_MAX),
        "receiptPollIntervalMs": 2000,
        "receiptTimeoutMs": 60000,
        # The page watches the head through the player's wallet and asks a pending claim's status
        # quickly once its payment is this deep (docs/decisions.md "Following a pending claim");
        # 0 when CHAIN_CONFIRMATIONS is "finalized": the page then polls plainly.
        "confirmations": _confirmations(),
        "socialLinks": settings.SOCIAL_LINKS,
        "videoIds": settings.VIDEO_IDS,
        "mapTilesUrl": settings.MAP_TILES_URL,
        "mapAttribution": settings.MAP_ATTRIBUTION,
    }
