"""Both verifiers (verify_challenge.py and the page's) on games played through the real site on anvil."""
