//! Chart renderers (SVG), shared by web and CLI.
