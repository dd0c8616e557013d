"""The relayer: it sends every call of the pot the site makes but open, and follows them to their receipts."""
