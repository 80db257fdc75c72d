"""ttsmod's build half and command line: data loading, rendering, sheets, saves, checker, watcher."""
