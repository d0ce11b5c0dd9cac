# Only comments here.
# def kernel(x_ref):
#   plgpu.inline_mgpu()
