"""The chain node: the JSON-RPC client with failover, its batches, and sending signed transactions."""
