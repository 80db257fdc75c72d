"""ttsmod's live half: the External Editor API bridge and the pure rules engines (``bridge.rules``)."""

__version__ = "0.1.0"
