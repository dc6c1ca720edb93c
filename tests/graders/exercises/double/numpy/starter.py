def double(x):
    """Return x with every element doubled."""
    raise NotImplementedError
