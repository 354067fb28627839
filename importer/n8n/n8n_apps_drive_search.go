package n8n

import (
	"fmt"

	"github.com/flowctl/flowctl/importer"
)

// driveSearch reads File/Folder → Search's parameters
// (fileFolder/search.operation.js): the search method (the name, by
// default, or a query) and its text, the filter's folder and drive (by
// ID or from the list; by URL is refused), what to search, the file
// types and Include Trashed Items, the option Fields, Return All or the
// limit (50 by default).
func (n *n8n) driveSearch(node *n8nNode, s *n8nScope, call *appCall) bool {
	p := node.params
	call.flow, call.what = "google_drive_search", "searches the files and folders"
	if m := p.Get("searchMethod"); m != nil {
		call.args = append(call.args, importer.Member{Name: "search_method", Value: s.textValue(m, "search_method")})
	}
	if q := p.Get("queryString"); q != nil {
		call.args = append(call.args, importer.Member{Name: "query_string", Value: s.textValue(q, "query_string")})
	}
	if f := p.Get("filter"); f != nil && len(f.Keys) > 0 {
		call.args = append(call.args, importer.Member{Name: "filter", Value: importer.Code("true")})
		for _, k := range f.Keys {
			v := f.Get(k)
			switch k {
			case "folderId", "driveId":
				mode, id := rlValue(v)
				if mode == "url" {
					n.Problem(node.where, v.Get("mode"), "Unsupported option", "a folder or drive given by URL is not converted; from the list or by ID is.")
					return false
				}
				name := map[string]string{"folderId": "folder_id", "driveId": "drive_id"}[k]
				if id != nil {
					call.args = append(call.args, importer.Member{Name: name, Value: s.textValue(id, name)})
				}
			case "whatToSearch":
				call.args = append(call.args, importer.Member{Name: "what_to_search", Value: s.textValue(v, "what_to_search")})
			case "fileTypes":
				call.args = append(call.args, importer.Member{Name: "file_types", Value: s.deepValue(v, "file_types")})
			case "includeTrashed":
				call.args = append(call.args, importer.Member{Name: "include_trashed", Value: s.value(v, "include_trashed")})
			default:
				n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("Search's filter %s is not converted; Folder, Drive, What to Search, File Types and Include Trashed Items are.", k))
				return false
			}
		}
	}
	if o := p.Get("options"); o != nil {
		for _, k := range o.Keys {
			if k != "fields" {
				n.Problem(node.where, o.Get(k), "Unsupported option", fmt.Sprintf("Search's option %s is not converted; Fields is.", k))
				return false
			}
			call.args = append(call.args, importer.Member{Name: "fields", Value: s.deepValue(o.Get(k), "fields")})
		}
	}
	all := p.Get("returnAll")
	if all != nil && !(all.Kind == 'b' && !all.Bool) {
		call.args = append(call.args, importer.Member{Name: "return_all", Value: s.value(all, "return_all")})
	}
	if all == nil || all.Kind != 'b' || !all.Bool {
		var limit importer.Expr = importer.Code("50")
		if l := p.Get("limit"); l != nil {
			limit = s.value(l, "limit")
		}
		call.args = append(call.args, importer.Member{Name: "limit", Value: limit})
	}
	return true
}
