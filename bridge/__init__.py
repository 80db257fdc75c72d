"""ttsmod's live half: the External Editor API bridge and the pure rules engines (``bridge.rules``)."""

__version__ = "0.1.0"

ENVELOPE_VERSION = 1
"""The version of the envelope every bridge message between the mod and the bridge carries (its ``ttsmod`` field).
Here, not in :mod:`bridge.session`, so that a build (which writes it into the mod) need not import the bridge's
event loop."""
