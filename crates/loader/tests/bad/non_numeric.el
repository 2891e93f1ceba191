# SNAP-like
1 2
3 x
