"""Everything Qt: the main window, one module per panel, plot items, settings, theme."""
