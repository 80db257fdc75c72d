"""One module per ``ttsmod`` command; each is a thin click wrapper over a library function."""
