"""Layer 2: privacy -- accounting (zCDP, PLD), the ledger and its totals, exponential selection,
PubMix/LinMix mathematics and the mechanism registry (mechanisms/).  Reads the model, never I/O."""
