"""Qt-free file formats: network files, scene files and their validation."""
