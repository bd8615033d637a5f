// Replaced by the session sources.
