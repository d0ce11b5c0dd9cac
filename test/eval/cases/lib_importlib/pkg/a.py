import importlib

relative = importlib.import_module(".b", __package__)
absolute = importlib.import_module("pkg.b")
