// Placeholder until the spec lands.
