-- Which project folders may run their own programs (issue 35). A cloned
-- repository's `.venv/bin/pallas-lsp`, `.venv/bin/python` and
-- `[tool.pallas-lsp] python` are the repository's code: the plugin starts
-- them only once the user trusted the folder, as VS Code's Restricted Mode
-- does. Until then the server is `cmd` from the user's config or
-- `pallas-lsp` on PATH, the server is told `workspaceTrusted = false` (it
-- reads the project's JAX statically and executes nothing of it), and runs
-- are refused with a message saying how to trust.
--
-- Where trust is kept:
--   * Neovim 0.11+: Neovim's own trust database, which knows directories
--     (vim.secure.read on a folder; `:trust`). :PallasTrust asks there.
--   * Neovim 0.9/0.10: vim.secure trusts files only: the project's
--     pyproject.toml stands for the folder (by its hash: an edit of it asks
--     again, as 'exrc' files do).
--   * Every version, and the only way on 0.7/0.8: the folders the user lists
--     in their own config, setup({ trusted_folders = { "~/src/proj" } })
--     (a folder and everything below it).
local M = {}

local function realpath(path)
  return vim.loop.fs_realpath(path) or path
end

--- How this Neovim keeps trust: "directory" (0.11+), "file" (0.9/0.10) or
--- "config" (0.7/0.8: only the user's list).
function M.kind()
  local secure = vim.secure
  if M._force_kind then -- tests run the 0.9/0.10 code path on 0.11
    return M._force_kind
  end
  if secure and secure.read and vim.fn.has("nvim-0.11") == 1 then
    return "directory"
  elseif secure and secure.read and vim.fn.has("nvim-0.9") == 1 then
    return "file"
  end
  return "config"
end

-- Neovim's trust database ($XDG_STATE_HOME/nvim/trust, lines "HASH PATH"),
-- read without prompting: vim.secure.read asks when it does not know a path,
-- and opening a file must never ask.
local function trust_database()
  local out = {}
  local file = io.open(vim.fn.stdpath("state") .. "/trust", "r")
  if not file then
    return out
  end
  for line in file:lines() do
    local hash, path = line:match("^(%S+) (.+)$")
    if hash then
      out[path] = hash
    end
  end
  file:close()
  return out
end

local function contents(path)
  local file = io.open(path, "r")
  if not file then
    return nil
  end
  local text = file:read("*a")
  file:close()
  return text
end

-- The file that stands for `root` where only files can be trusted.
local function anchor(root)
  local path = root .. "/pyproject.toml"
  return vim.fn.filereadable(path) == 1 and realpath(path) or nil
end

local function listed(root)
  local real = realpath(root)
  for _, folder in ipairs(require("pallas_lsp").options.trusted_folders or {}) do
    local f = realpath((vim.fn.fnamemodify(vim.fn.expand(folder), ":p"):gsub("/$", "")))
    if real == f or real:sub(1, #f + 1) == f .. "/" then
      return true
    end
  end
  return false
end

--- Whether the folder `root` is trusted (never asks).
function M.is_trusted(root)
  if type(root) ~= "string" or root == "" then
    return false
  end
  if listed(root) then
    return true
  end
  local kind = M.kind()
  if kind == "directory" then
    return trust_database()[realpath(root)] == "directory"
  elseif kind == "file" then
    local file = anchor(root)
    local hash = file and trust_database()[file]
    local text = hash and contents(file)
    return text ~= nil and hash == vim.fn.sha256(text)
  end
  return false
end

--- How the user trusts `root`, in words (for messages).
function M.how(root)
  local kind = M.kind()
  if kind == "directory" or (kind == "file" and anchor(root)) then
    return ":PallasTrust (Neovim's trust database; `:trust ++remove` undoes it)"
  end
  return ("setup({ trusted_folders = { %q } }) in your config"):format(root)
end

--- The line shown when something is refused in an untrusted folder.
function M.refusal(root, what)
  return ("pallas-lsp: %s is not trusted, so %s. Trust it with %s."):format(root, what, M.how(root))
end

--- :PallasTrust: asks Neovim's trust database about `root` (allow / deny /
--- view / ignore: Neovim's own prompt). Returns whether it is trusted now.
function M.ask(root)
  local kind = M.kind()
  local ok, err = true, nil
  if kind == "directory" then
    ok, err = pcall(vim.secure.read, realpath(root))
  elseif kind == "file" and anchor(root) then
    ok, err = pcall(vim.secure.read, anchor(root))
  else
    vim.notify(("pallas-lsp: this Neovim keeps no folder trust; add the folder to %s"):format(M.how(root)),
      vim.log.levels.WARN)
    return M.is_trusted(root)
  end
  if not ok then
    vim.notify("pallas-lsp: " .. tostring(err), vim.log.levels.ERROR)
  end
  return M.is_trusted(root)
end

return M
