-- Neovim 0.11+ reads this file for `vim.lsp.enable("pallas_lsp")` (it is on
-- the runtimepath with the plugin). It gives the default configuration, the
-- same one `require("pallas_lsp").setup{}` registers; override any field with
-- `vim.lsp.config("pallas_lsp", {...})`.
local pallas = require("pallas_lsp")
require("pallas_lsp.commands").register()
local config = pallas.client_config(nil)
config.root_dir = nil -- resolved per buffer from root_markers
config.cmd = pallas.cmd_for(vim.fn.getcwd())
return config
