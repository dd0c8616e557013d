"""The chain client's tests: its JSON-RPC batches and the proxy it reads, against nodes on real loopback sockets."""
