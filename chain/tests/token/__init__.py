"""The test USDC on anvil: its EIP-3009 authorizations, pause and blacklist, and the domain each process keeps."""
