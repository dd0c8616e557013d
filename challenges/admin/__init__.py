"""What every admin shares (links.py). The Challenge admin reads stakes and winners: it is in
responses/admin/ (docs/architecture.md, "Layers")."""
