"""One router per resource; each route only translates between HTTP and a plain module."""
