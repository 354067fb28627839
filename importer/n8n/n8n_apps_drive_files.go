package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// driveDownload is File → Download (file/download.operation.js): for
// each item the registry's flow downloads the file (a Google file
// exported to the option Google File Conversion's formats), and the
// node's item is the input item's json with the file as its binary field
// (the option Put Output File in Field, "data" by default) beside the
// item's other files, as n8n's node copies them. The option File Name
// names the file in n8n's binary data, which the flow's files
// ({data, mimeType}) do not carry.
func (n *n8n) driveDownload(node *n8nNode, in n8nItems, s *n8nScope, call *appCall) (prop string, ok bool) {
	id, ok := n.driveID(node, s, "fileId")
	if !ok {
		return "", false
	}
	call.flow, call.what = "google_drive_file_download", "downloads the file"
	call.args = []importer.Member{{Name: "file_id", Value: id}}
	prop = "data"
	opts := node.params.Get("options")
	if opts == nil {
		return prop, true
	}
	for _, k := range opts.Keys {
		v := opts.Get(k)
		switch k {
		case "fileName":
		case "binaryPropertyName":
			if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
				n.Problem(node.where, v, "Unsupported expression", "the name of the binary field is converted when it is a name, not an expression.")
				return "", false
			}
			if v.Str != "" {
				prop = v.Str
			}
		case "googleFileConversion":
			conv := v.Get("conversion")
			if conv == nil {
				continue
			}
			for _, f := range conv.Keys {
				name := map[string]string{"docsToFormat": "docs_to_format", "slidesToFormat": "slides_to_format", "sheetsToFormat": "sheets_to_format", "drawingsToFormat": "drawings_to_format"}[f]
				if name == "" {
					n.Problem(node.where, conv.Get(f), "Unsupported option", fmt.Sprintf("Download's Google File Conversion %s is not converted.", f))
					return "", false
				}
				call.args = append(call.args, importer.Member{Name: name, Value: s.textValue(conv.Get(f), name)})
			}
		default:
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("Download's option %s is not converted; File Name, Put Output File in Field and Google File Conversion are.", k))
			return "", false
		}
	}
	return prop, true
}

// driveFiles makes the items of a node whose registry flow gives a file
// for each item: the input items' json, each with the file its call
// gave in binary field prop, over the item's other files.
func (n *n8n) driveFiles(node *n8nNode, in n8nItems, out []n8nItems, prop string) []n8nItems {
	if out == nil {
		return nil
	}
	step := importer.Ref("step", node.step)
	local := n.Name("local", node.name, node.step)
	n.File.Locals = append(n.File.Locals, local2(
		fmt.Sprintf("The items of n8n node %q: the json of the item each file was downloaded for.", node.name),
		local, importer.Join("[for k, r in ", step, " : (", in.e, ")[k]]")))
	var each importer.Expr = importer.Object([]importer.Member{{Name: prop, Value: importer.Code("r.items[0]")}})
	props := map[string]bool{prop: true}
	if in.binary != nil {
		each = importer.Join("merge((", in.binary.e, ")[k], ", each, ")")
		for k, v := range in.binary.props {
			if k != prop {
				props[k] = v
			}
		}
	}
	o := pairedWith(importer.Ref("local", local), in, nil)
	o.binary = n.binaryLocal(node, importer.Join("[for k, r in ", step, " : ", each, "]"), props)
	return []n8nItems{o}
}
