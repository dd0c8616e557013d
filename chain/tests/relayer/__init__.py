"""The relayer on anvil: the signed stake's POST, the sender, the watcher and the relay's limits."""
