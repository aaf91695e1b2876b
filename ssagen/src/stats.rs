//! stats placeholder
