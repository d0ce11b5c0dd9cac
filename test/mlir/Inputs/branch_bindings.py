def normalise(x, scale):
  if scale is None:
    x = x * 1.0
  else:
    x = x.astype(scale)
  return x


def chain(x, mode):
  n = 0
  if mode == 1:
    n = 1
    x = x + 1
  elif mode == 2:
    n = n + x
  else:
    return x
  return n
