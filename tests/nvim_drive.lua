-- Neovim drives `pipelint server` as a user would (tests/test_server_neovim.py): open a file with a
-- serial map, wait for PL101, hover it, apply its quick fix, wait for the finding to go.
-- Writes one line per step to $PIPELINT_NVIM_OUT.
local out = assert(io.open(os.getenv("PIPELINT_NVIM_OUT"), "w"))
local function say(...) out:write(table.concat({...}, " ") .. "\n"); out:flush() end
local cmd = { os.getenv("PIPELINT_PYTHON"), "-m", "pipelint", "server" }
local root = vim.fn.getcwd()
vim.cmd("edit " .. os.getenv("PIPELINT_FILE"))
vim.bo.filetype = "python"
if vim.lsp.start then
  vim.lsp.start({ name = "pipelint", cmd = cmd, root_dir = root })
else  -- Neovim 0.7: the same, in two steps
  local id = vim.lsp.start_client({ name = "pipelint", cmd = cmd, root_dir = root })
  vim.lsp.buf_attach_client(0, id)
end
local function codes()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(found, d.code or d.user_data and d.user_data.lsp.code) end
  return found
end
local function has(code) for _, c in ipairs(codes()) do if c == code then return true end end return false end
local ok = vim.wait(30000, function() return has("PL101") end, 20)
say("open", tostring(ok), table.concat(codes(), ","))
local d = nil
for _, x in ipairs(vim.diagnostic.get(0)) do if (x.code or x.user_data.lsp.code) == "PL101" then d = x end end
vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
local params = vim.lsp.util.make_range_params()
params.context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics and vim.lsp.diagnostic.get_line_diagnostics() or {} }
local responses = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 10000)
local titles, fix = {}, nil
for _, response in pairs(responses or {}) do
  for _, action in ipairs(response.result or {}) do
    table.insert(titles, action.title)
    if action.title:find("^Fix PL101") then fix = action end
  end
end
say("actions", table.concat(titles, " | "))
vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
local hover = vim.lsp.buf_request_sync(0, "textDocument/hover", vim.lsp.util.make_position_params(), 10000)
for _, response in pairs(hover or {}) do
  if response.result then say("hover", (response.result.contents.value:gsub("\n.*", ""))) end
end
local started = vim.loop.hrtime()
vim.lsp.util.apply_workspace_edit(fix.edit, "utf-16")
local gone = vim.wait(5000, function() return not has("PL101") end, 5)
say("fixed", tostring(gone), string.format("%.0f ms", (vim.loop.hrtime() - started) / 1e6))
say("line", vim.api.nvim_buf_get_lines(0, 2, 3, false)[1])
out:close()
vim.cmd("qa!")
