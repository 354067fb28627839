-- flowctl's language server in Neovim 0.7 and later (docs/editors.md).
--
--   require('flowctl').setup()            -- with this file on 'runtimepath' (lua/flowctl.lua)
--   dofile('/path/to/flowctl.lua').setup() -- or from anywhere
--
-- Options: cmd (default { 'flowctl', 'lsp' }), registries (directories of
-- *.block.hcl files, as --registry takes them).
local M = {}

local patterns = { '*.flow.hcl', '*.block.hcl', '*.test.hcl' }

-- The workspace: the nearest directory above the file that holds .git,
-- else the file's directory.
local function root_of(file)
  local dir = vim.fn.fnamemodify(file, ':p:h')
  local git = vim.fn.finddir('.git', dir .. ';')
  if git ~= '' then
    return vim.fn.fnamemodify(git, ':p:h:h')
  end
  return dir
end

function M.setup(opts)
  opts = opts or {}
  local clients = {} -- by root
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    pattern = patterns,
    callback = function(args)
      vim.bo[args.buf].filetype = 'hcl'
      local root = root_of(vim.api.nvim_buf_get_name(args.buf))
      if not clients[root] then
        clients[root] = vim.lsp.start_client({
          name = 'flowctl',
          cmd = opts.cmd or { 'flowctl', 'lsp' },
          root_dir = root,
          init_options = { registries = opts.registries or {} },
        })
      end
      vim.lsp.buf_attach_client(args.buf, clients[root])
    end,
  })
end

return M
