"""The pot contract's encodings and calls (contracts/GeopoemPot.sol)."""
