"""The USDC token: its EIP-712 domain read from the chain, and the receive authorizations players sign."""
