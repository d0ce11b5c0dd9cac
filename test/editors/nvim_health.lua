-- :checkhealth pallas_lsp in a real (headless) Neovim: runs the health check
-- and writes its report to $HEALTH_OUT for the suite to read. The plugin is set
-- up with $PALLAS_LSP_BIN / $PALLAS_LSP_PYTHON when they are given, else it finds
-- the server as a user's setup would ($VIRTUAL_ENV, the project's .venv, PATH).
--   HEALTH_OUT=/tmp/health.txt nvim --headless -u NONE -i NONE -c "luafile test/editors/nvim_health.lua"
local root = vim.env.PALLAS_LSP_ROOT or vim.fn.getcwd()
vim.opt.rtp:append(root .. "/editors/nvim")
local opts = {}
if vim.env.HEALTH_CMD and vim.env.HEALTH_CMD ~= "" then
  opts.cmd = { vim.env.HEALTH_CMD, "serve", "--stdio" }
end
if vim.env.HEALTH_PYTHON and vim.env.HEALTH_PYTHON ~= "" then
  opts.python = vim.env.HEALTH_PYTHON
end
require("pallas_lsp").options = vim.tbl_deep_extend("force", require("pallas_lsp").options, opts)
local ok, err = pcall(vim.cmd, "checkhealth pallas_lsp")
if not ok then
  io.stderr:write("FAIL: :checkhealth pallas_lsp: " .. tostring(err) .. "\n")
  vim.cmd("cquit 1")
end
vim.fn.writefile(vim.api.nvim_buf_get_lines(0, 0, -1, false), vim.env.HEALTH_OUT)
vim.cmd("qall!")
