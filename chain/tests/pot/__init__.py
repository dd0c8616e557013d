"""The pot's tests: its calls and refusals as the site encodes and reads them; on anvil the follower, the
worker's steps, whole games, and every cheat tried."""
