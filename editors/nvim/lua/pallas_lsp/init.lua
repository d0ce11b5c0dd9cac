-- pallas-lsp for Neovim: `require("pallas_lsp").setup{...}` starts the server
-- for Python buffers and adds :PallasRun, :PallasCompare, :PallasMlir and
-- :PallasDoctor. Options follow what users pass to any language server
-- (cmd, settings, on_attach, capabilities, root_markers).
--
-- Neovim 0.11+: registers the configuration with vim.lsp.config and enables it
-- (the defaults also live in lsp/pallas_lsp.lua, so `vim.lsp.enable("pallas_lsp")`
-- works without setup). Neovim 0.8-0.10: vim.lsp.start from a FileType
-- autocommand. Neovim 0.7: vim.lsp.start_client + vim.lsp.buf_attach_client,
-- one client per project root.
local compat = require("pallas_lsp.compat")

local M = {}

M.name = "pallas_lsp"
M.section = "pallasLsp" -- settings section, as in the VS Code extension

local defaults = {
  cmd = nil, -- string or list; default: pallas-lsp from the active virtualenv, the project's .venv, or PATH
  python = nil, -- interpreter whose JAX is analysed; default: $VIRTUAL_ENV's, else the project's .venv
  filetypes = { "python" },
  root_markers = { "pyproject.toml", ".git" },
  settings = {}, -- the pallasLsp section (or { pallasLsp = {...} }): logLevel, select, ignore, runner
  init_options = nil, -- extra initializationOptions, merged over the settings
  on_attach = nil,
  capabilities = nil,
  handlers = nil,
  codelens = true, -- refresh code lenses ("Run on GPU", ...) when the server offers them
  log_level = nil, -- shorthand for settings.logLevel
}

M.options = vim.deepcopy(defaults)
M.status = {} -- client id -> last pallas/status params

local function venv_file(dir, name)
  if dir and dir ~= "" then
    local path = dir .. "/bin/" .. name
    if compat.is_executable(path) then
      return path
    end
  end
  return nil
end

--- `path` made absolute against the project root (the README's
--- `python = ".venv/bin/python"` means the project's, not the one of the
--- folder Neovim was started in).
function M.resolve(path, root)
  if type(path) ~= "string" or path == "" then
    return path
  end
  path = vim.fn.expand(path)
  if path:sub(1, 1) == "/" or not root then
    return path
  end
  return root .. "/" .. path:gsub("^%./", "")
end

--- The Python interpreter for a project root (nil: let the server decide).
function M.python_for(root)
  if M.options.python then
    return M.resolve(M.options.python, root)
  end
  return venv_file(vim.env.VIRTUAL_ENV, "python")
    or (root and venv_file(root .. "/.venv", "python"))
    or nil
end

--- The command that starts the server for a project root.
function M.cmd_for(root)
  local cmd = M.options.cmd
  if type(cmd) == "string" then
    return { cmd, "serve", "--stdio" }
  elseif type(cmd) == "table" then
    return cmd
  end
  local exe = venv_file(vim.env.VIRTUAL_ENV, "pallas-lsp")
    or (root and venv_file(root .. "/.venv", "pallas-lsp"))
    or "pallas-lsp"
  return { exe, "serve", "--stdio" }
end

--- The settings the server receives (see docs/editors.md).
function M.server_settings(root)
  local user = M.options.settings or {}
  if user[M.section] then
    user = user[M.section]
  end
  local merged = vim.tbl_deep_extend("force", {
    python = M.python_for(root) or vim.NIL,
    logLevel = M.options.log_level or "info",
    select = {},
    ignore = {},
    runner = { launchTemplate = vim.NIL, timeoutSeconds = 300 },
    workspaceTrusted = true,
  }, user)
  if type(merged.python) == "string" then
    merged.python = M.resolve(merged.python, root)
  end
  -- The plugin shows a run's result in its run buffer: the server need not
  -- repeat it as a message.
  merged.runner = vim.tbl_extend("force", merged.runner or {}, { clientShowsResults = true })
  return merged
end

--- $/progress: Neovim's own handler (0.7 only stores it; 0.10+ feeds
--- vim.lsp.status), then one echoed line, so a run's progress shows on every
--- version without a hit-enter prompt.
function M.progress_handler(err, result, ctx, config)
  local default = vim.lsp.handlers["$/progress"]
  if default then
    pcall(default, err, result, ctx, config)
  end
  local value = type(result) == "table" and result.value or nil
  if type(value) ~= "table" then
    return
  end
  M.progress = M.progress or {}
  local key = tostring(ctx.client_id) .. ":" .. tostring(result.token)
  M.run_tokens = M.run_tokens or {}
  if value.kind == "begin" then
    M.progress[key] = value.title or "pallas-lsp"
    -- A run's progress ("Pallas: compare run of f"): :PallasCancel cancels
    -- it through this token, and the run still replies (status cancelled).
    if (value.title or ""):find("^Pallas: ") and value.cancellable then
      M.run_tokens[ctx.client_id] = result.token
    end
  elseif value.kind == "end" and M.run_tokens[ctx.client_id] == result.token then
    M.run_tokens[ctx.client_id] = nil
  end
  local title = M.progress[key] or "pallas-lsp"
  local text = title
  if value.kind == "end" then
    M.progress[key] = nil
    text = text .. ": " .. (value.message or "done")
  elseif value.message then
    text = text .. ": " .. value.message
  end
  if type(value.percentage) == "number" then
    text = text .. (" (%d%%)"):format(value.percentage)
  end
  require("pallas_lsp.commands").echo(text)
end

local function on_attach(client, bufnr)
  local caps = client.server_capabilities or {}
  if M.options.codelens and caps.codeLensProvider then
    local group = vim.api.nvim_create_augroup("pallas_lsp_codelens_" .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
      group = group,
      buffer = bufnr,
      callback = function()
        pcall(vim.lsp.codelens.refresh)
      end,
    })
    pcall(vim.lsp.codelens.refresh)
  end
  if M.options.on_attach then
    M.options.on_attach(client, bufnr)
  end
end

--- The client configuration for a project root (root may be nil on 0.11, where
--- vim.lsp.config resolves it from root_markers).
function M.client_config(root)
  local settings = M.server_settings(root)
  local handlers = vim.tbl_extend("force", {
    ["pallas/status"] = function(_, result, ctx)
      M.status[ctx.client_id] = result
    end,
    ["$/progress"] = M.progress_handler,
  }, M.options.handlers or {})
  return {
    name = M.name,
    cmd = M.cmd_for(root),
    root_dir = root,
    filetypes = M.options.filetypes,
    root_markers = M.options.root_markers,
    init_options = vim.tbl_deep_extend("force", settings, M.options.init_options or {}),
    -- The server asks workspace/configuration for section "pallas-lsp"; the
    -- same table under our settings name serves clients that use that one.
    settings = { [M.section] = settings, ["pallas-lsp"] = settings },
    capabilities = M.options.capabilities,
    handlers = handlers,
    on_attach = on_attach,
    before_init = function(params, config)
      -- On 0.11 the root is known only now: fill in that project's interpreter.
      local root_dir = config.root_dir
      local given = params.initializationOptions and params.initializationOptions.python
      if root_dir and type(given) == "string" and given:sub(1, 1) ~= "/" then
        given = M.resolve(given, root_dir)
        params.initializationOptions.python = given
        config.settings[M.section].python = given
      end
      if root_dir and params.initializationOptions and params.initializationOptions.python == vim.NIL then
        local python = M.python_for(root_dir)
        if python then
          params.initializationOptions.python = python
          config.settings[M.section].python = python -- the same table as settings["pallas-lsp"]
        end
      end
    end,
  }
end

local warned_missing = false
local function check_executable(cmd)
  if compat.is_executable(cmd[1]) then
    return true
  end
  if not warned_missing then
    warned_missing = true
    vim.notify(
      ("pallas-lsp: %q is not executable. Install pallas-lsp into your virtualenv "
        .. "or pass setup{ cmd = '/path/to/pallas-lsp' }."):format(cmd[1]),
      vim.log.levels.ERROR
    )
  end
  return false
end

local clients_by_root = {} -- Neovim 0.7: root -> client id

--- Starts (or reuses) the client for `bufnr` and attaches it (0.7-0.10 paths).
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == "" then
    return nil
  end
  local root = compat.find_root(fname, M.options.root_markers) or vim.fn.fnamemodify(fname, ":p:h")
  local config = M.client_config(root)
  if not check_executable(config.cmd) then
    return nil
  end
  if compat.has_lsp_start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  if not id or vim.lsp.client_is_stopped(id) then
    id = vim.lsp.start_client(config)
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  -- Functions and lists are replaced, not merged, so take them as given.
  for _, key in ipairs({ "cmd", "filetypes", "root_markers", "on_attach" }) do
    if opts and opts[key] ~= nil then
      M.options[key] = opts[key]
    end
  end
  require("pallas_lsp.commands").register()

  if compat.has_lsp_config then
    local config = M.client_config(nil)
    config.root_dir = nil -- resolved per buffer from root_markers
    -- The command is fixed before any root is known: look for the project's
    -- .venv in the folder Neovim was started in.
    config.cmd = M.cmd_for(vim.fn.getcwd())
    if not check_executable(config.cmd) then
      return
    end
    vim.lsp.config(M.name, config)
    vim.lsp.enable(M.name)
    return
  end

  local group = vim.api.nvim_create_augroup("pallas_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.options.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- Buffers opened before setup ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.options.filetypes, vim.bo[buf].filetype) then
      M.attach(buf)
    end
  end
end

--- A short status for statuslines: "pallas: JAX 0.10.2 · no GPU".
function M.statusline(bufnr)
  local client = compat.clients(bufnr or 0, M.name)[1]
  if not client then
    return ""
  end
  local status = M.status[client.id] or {}
  local parts = { "pallas" }
  if status.jaxVersion and status.jaxVersion ~= vim.NIL then
    table.insert(parts, "JAX " .. status.jaxVersion)
  end
  -- The GPU's name, or "no GPU" (never the probe's own words, such as a
  -- dlopen error: :PallasDoctor shows those).
  if type(status.gpus) == "table" then
    table.insert(parts, #status.gpus == 0 and "no GPU" or (status.gpus[1].name or "GPU"))
  elseif type(status.gpu) == "string" then
    table.insert(parts, #status.gpu <= 40 and status.gpu or "no GPU")
  end
  return table.concat(parts, " · ")
end

return M
