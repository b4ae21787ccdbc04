"""Layer 2 (beside privacy): reading tables (data, intake, chunked), presets, exports, atomic writes."""
