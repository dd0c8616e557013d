"""The pot contract (contracts/GeopoemPot.sol): its encodings and calls, its events followed, the game's steps."""
