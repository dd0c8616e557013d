from django.apps import AppConfig


class ChainConfig(AppConfig):
    name = "chain"
    verbose_name = "Chain"

    def ready(self) -> None:
        # challenges and responses sit below chain and never import it: each states what it needs of
        # the chain as one port (challenges/ports.py, responses/ports.py), and the chain installs its
        # adapter here (chain/pot/port.py).
        from challenges import ports as challenge_ports
        from responses import ports as response_ports

        from .pot.port import ChainAdapter

        adapter = ChainAdapter()
        challenge_ports.install_chain_port(adapter)
        response_ports.install_chain_port(adapter)
