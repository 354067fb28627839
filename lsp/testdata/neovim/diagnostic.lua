-- Run by TestNeovim: nvim --headless -u NONE -c 'luafile diagnostic.lua'.
-- Opens a flow with a mistake through editors/neovim/flowctl.lua and
-- writes the diagnostics Neovim's own client received to $FLOWCTL_RESULT.
local ok, err = pcall(function()
  dofile(vim.env.FLOWCTL_NVIM_CONFIG).setup({ cmd = { vim.env.FLOWCTL_SERVER } })
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.FLOWCTL_FLOW))
  local buf = vim.api.nvim_get_current_buf()
  vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(lines, string.format('%d:%d %s', d.lnum + 1, d.col + 1, d.message))
  end
  vim.fn.writefile(lines, vim.env.FLOWCTL_RESULT)
end)
if not ok then
  vim.fn.writefile({ 'error: ' .. tostring(err) }, vim.env.FLOWCTL_RESULT)
end
vim.cmd('qa!')
