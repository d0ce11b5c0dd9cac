-- Neovim 0.11+ reads this file for `vim.lsp.enable("pallas_lsp")` (it is on
-- the runtimepath with the plugin). It gives the default configuration, the
-- same one `require("pallas_lsp").setup{}` registers; override any field with
-- `vim.lsp.config("pallas_lsp", {...})`.
local pallas = require("pallas_lsp")
require("pallas_lsp.commands").register()
local config = pallas.client_config(nil)
config.root_dir = nil -- resolved per buffer from root_markers
-- Chosen per root when a client starts: a project's own .venv/bin/pallas-lsp
-- only in a folder the user trusted (trust.lua).
config.cmd = pallas.cmd_function()
return config
