-- End to end in a real Neovim (headless): the plugin starts pallas-lsp for a
-- kernel file, PLS001 appears at the line JAX blames, the rewrite code action
-- is requested and applied, and the finding goes away. Parts listed in
-- pending.json are skipped with their reason. Run by test/suites/60-editors.sh:
--
--   E2E_KERNEL=/tmp/copy/kernel.py PALLAS_LSP_BIN=... PALLAS_LSP_PYTHON=... \
--   nvim --headless -u NONE -i NONE -c "luafile test/editors/nvim_e2e.lua"
local root = vim.env.PALLAS_LSP_ROOT or vim.fn.getcwd()
local bin = vim.env.PALLAS_LSP_BIN
local python = vim.env.PALLAS_LSP_PYTHON
local kernel = vim.env.E2E_KERNEL
local DIAGNOSTIC_TIMEOUT_MS = 30000

local function out(line)
  io.stdout:write(line .. "\n")
end

local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local pending = vim.fn.json_decode(table.concat(vim.fn.readfile(root .. "/test/editors/pending.json"), "\n"))
local function skipped(part)
  if pending[part] then
    out(("SKIP: %s: %s"):format(part, pending[part]))
    return true
  end
  return false
end

-- How many times vim.diagnostic changed for the kernel buffer. This counts
-- pushed (publishDiagnostics, what 0.7 gets) and pulled (textDocument/
-- diagnostic, what 0.10+ asks for when the server offers it) results alike,
-- empty ones included.
local diagnostic_changes = 0

local function wait(what, timeout, predicate)
  if not vim.wait(timeout, predicate, 50) then
    fail(("timed out after %d ms waiting for %s"):format(timeout, what))
  end
end

local function pls001(diagnostics)
  return vim.tbl_filter(function(d)
    return tostring(d.code) == "PLS001"
  end, diagnostics or {})
end

-- The LSP form of a vim.diagnostic entry, for codeAction's context: the
-- client keeps the original under user_data.lsp (complete from 0.10; 0.7
-- keeps only some fields, so the range is rebuilt from lnum/col, which equal
-- UTF-16 columns on the ASCII fixture).
local function lsp_diagnostic(d)
  local lsp = vim.deepcopy((d.user_data or {}).lsp or {})
  lsp.range = lsp.range or {
    start = { line = d.lnum, character = d.col },
    ["end"] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
  }
  lsp.message = lsp.message or d.message
  lsp.severity = lsp.severity or d.severity
  lsp.code = lsp.code or d.code
  lsp.source = lsp.source or d.source
  return lsp
end

local function main()
  assert(bin and bin ~= "", "PALLAS_LSP_BIN is not set")
  assert(kernel and kernel ~= "", "E2E_KERNEL is not set")
  vim.opt.runtimepath:prepend(root .. "/editors/nvim")
  vim.cmd("filetype on")

  local attached
  require("pallas_lsp").setup({
    cmd = { bin, "serve", "--stdio" },
    settings = { python = python, logLevel = "info" },
    on_attach = function(client, bufnr)
      attached = { client = client, bufnr = bufnr }
    end,
  })
  out("ok: plugin loaded (setup, :PallasRun, :PallasMlir registered: "
    .. tostring(vim.fn.exists(":PallasRun") == 2 and vim.fn.exists(":PallasMlir") == 2) .. ")")
  if vim.fn.exists(":PallasRun") ~= 2 or vim.fn.exists(":PallasCompare") ~= 2 or vim.fn.exists(":PallasMlir") ~= 2 then
    fail("user commands missing")
  end

  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    callback = function(args)
      if vim.api.nvim_buf_get_name(args.buf) == vim.fn.fnamemodify(kernel, ":p") then
        diagnostic_changes = diagnostic_changes + 1
      end
    end,
  })
  vim.cmd("edit " .. vim.fn.fnameescape(kernel))
  local buf = vim.api.nvim_get_current_buf()
  wait("the client to attach", 15000, function()
    return attached ~= nil and attached.client.initialized ~= false
  end)
  local client = attached.client
  if client.config.root_dir ~= vim.fn.fnamemodify(kernel, ":p:h") then
    fail("root_dir is the folder with pyproject.toml, got " .. tostring(client.config.root_dir))
  end
  out("ok: attached " .. client.name .. " (root " .. client.config.root_dir .. ")")

  local uri = vim.uri_from_bufnr(buf)
  wait("diagnostics for the kernel file", DIAGNOSTIC_TIMEOUT_MS, function()
    return diagnostic_changes > 0
  end)
  out("ok: diagnostics received")

  -- :PallasMlir shows the module in a scratch buffer.
  vim.cmd("PallasMlir")
  local mlir_buf
  wait(":PallasMlir's scratch buffer", 15000, function()
    mlir_buf = vim.fn.bufnr("pallas://mlir/kernel.py.mlir")
    if mlir_buf == -1 then
      return false
    end
    local text = table.concat(vim.api.nvim_buf_get_lines(mlir_buf, 0, -1, false), "\n")
    return text:find("pallas.func @kernel", 1, true) ~= nil
  end)
  if vim.bo[mlir_buf].filetype ~= "mlir" or vim.bo[mlir_buf].modifiable then
    fail("the MLIR buffer is a read-only mlir scratch buffer")
  end
  out("ok: :PallasMlir shows the module")
  vim.cmd("buffer " .. buf) -- back to the kernel file for the rest
  vim.cmd("only")

  if skipped("diagnostics") then
    return
  end
  local marker
  for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:find("# <- PLS001", 1, true) then
      marker = i - 1
    end
  end
  wait("PLS001", DIAGNOSTIC_TIMEOUT_MS, function()
    return #pls001(vim.diagnostic.get(buf)) > 0
  end)
  local found = pls001(vim.diagnostic.get(buf))
  if #found ~= 1 then
    fail("one PLS001 in vim.diagnostic, got " .. vim.inspect(vim.diagnostic.get(buf)))
  end
  if found[1].lnum ~= marker then
    fail(("PLS001 at line %d, expected %d (the inline_mgpu call)"):format(found[1].lnum + 1, marker + 1))
  end
  out(("ok: PLS001 at line %d: %s"):format(found[1].lnum + 1, found[1].message:gsub("\n.*", "")))

  if skipped("codeActions") then
    return
  end
  local diagnostic = lsp_diagnostic(found[1])
  local responses = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", {
    textDocument = { uri = uri },
    range = diagnostic.range,
    context = { diagnostics = { diagnostic } },
  }, 15000)
  local action
  for _, response in pairs(responses or {}) do
    for _, a in ipairs(response.result or {}) do
      if a.title:lower():find("rewrite", 1, true) then
        action = a
      end
    end
  end
  if not action then
    fail("no rewrite code action in " .. vim.inspect(responses))
  end
  out("ok: code action: " .. action.title)
  if not action.edit and not action.command then
    local resolved = vim.lsp.buf_request_sync(buf, "codeAction/resolve", action, 15000)
    for _, response in pairs(resolved or {}) do
      action = response.result or action
    end
  end
  if action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
  elseif action.command then
    vim.lsp.buf_request_sync(buf, "workspace/executeCommand", action.command, 15000)
  end
  for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if line:match("^[^#]*inline_mgpu") then
      fail("the rewrite left inline_mgpu in the buffer: " .. line)
    end
  end
  wait("the PLS001 to go away after the rewrite", DIAGNOSTIC_TIMEOUT_MS, function()
    return #pls001(vim.diagnostic.get(buf)) == 0
  end)
  if #pls001(vim.diagnostic.get(buf)) ~= 0 then
    fail("vim.diagnostic still has PLS001")
  end
  out("ok: PLS001 gone after the rewrite")
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  fail(tostring(err))
end
out("PASS: neovim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
vim.cmd("qa!")
