package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// driveFolderURL is n8n's GOOGLE_DRIVE_FOLDER_URL_REGEX
// (Google/constants.js), the pattern of a folder's or a drive's URL.
const driveFolderURL = `https:\/\/drive\.google\.com(?:\/.*|)\/folders\/([0-9a-zA-Z\-_]+)(?:\/.*|)`

// driveFolder is a folder or drive resource locator's ID (param folderId
// or driveId), its default def (root, My Drive) when the node leaves it
// out; by URL, the ID n8n's pattern finds in it.
func (n *n8n) driveFolder(node *n8nNode, s *n8nScope, param, def string) (importer.Expr, bool) {
	rl := node.params.Get(param)
	mode, v := rlValue(rl)
	if v == nil {
		return importer.Str(def), true
	}
	if mode == "url" && v.Kind == 's' && !strings.HasPrefix(v.Str, "=") {
		m := regexp.MustCompile(driveFolderURL).FindStringSubmatch(v.Str)
		if m == nil {
			n.Problem(node.where, v, "Unsupported option", "the folder's URL is not one of a Google Drive folder (n8n's pattern finds no ID in it); n8n fails the node on it.")
			return nil, false
		}
		return importer.Str(m[1]), true
	}
	id := s.textValue(v, importer.Snake(param))
	if mode == "url" {
		id = importer.Join(importer.Call("regex", importer.Str(driveFolderURL), id), "[0]")
	}
	return id, true
}

// driveParentArgs adds the folder and the drive of a node (Move, Create
// From Text) to the flow's inputs, which resolve them as n8n's
// setParentFolder does.
func (n *n8n) driveParentArgs(node *n8nNode, s *n8nScope, call *appCall) bool {
	folder, ok := n.driveFolder(node, s, "folderId", "root")
	if !ok {
		return false
	}
	drive, ok := n.driveFolder(node, s, "driveId", "My Drive")
	if !ok {
		return false
	}
	call.args = append(call.args, importer.Member{Name: "folder_id", Value: folder}, importer.Member{Name: "drive_id", Value: drive})
	return true
}

// driveFileOp reads the parameters of File → Share, Move, Copy and
// Create From Text (file/*.operation.js) into the call of its registry
// flow.
func (n *n8n) driveFileOp(node *n8nNode, s *n8nScope, op string, call *appCall) bool {
	p := node.params
	switch op {
	case "share":
		id, ok := n.driveID(node, s, "fileId")
		if !ok {
			return false
		}
		call.flow, call.what = "google_drive_file_share", "shares the file"
		call.args = []importer.Member{{Name: "file_id", Value: id}}
		if pv := p.Get("permissionsUi", "permissionsValues"); pv != nil {
			perm, ok := n.drivePermission(node, s, pv)
			if !ok {
				return false
			}
			call.args = append(call.args, importer.Member{Name: "permission", Value: perm})
		}
		if o := p.Get("options"); o != nil && o.Kind == 'o' && len(o.Keys) > 0 {
			call.args = append(call.args, importer.Member{Name: "options", Value: s.deepValue(o, "options")})
		}
	case "move":
		id, ok := n.driveID(node, s, "fileId")
		if !ok {
			return false
		}
		call.flow, call.what = "google_drive_file_move", "moves the file"
		call.args = []importer.Member{{Name: "file_id", Value: id}}
		return n.driveParentArgs(node, s, call)
	case "copy":
		return n.driveCopy(node, s, call)
	case "createFromText":
		call.flow, call.what = "google_drive_file_create_from_text", "creates the text file"
		if o := p.Get("options"); o != nil {
			for _, k := range o.Keys {
				if v := o.Get(k); !(k == "convertToGoogleDocument" && v.Kind == 'b' && !v.Bool) {
					n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("Create From Text's option %s is not converted.", k))
					return false
				}
			}
		}
		for _, k := range []string{"name", "content"} {
			if v := p.Get(k); v != nil {
				call.args = append(call.args, importer.Member{Name: k, Value: s.textValue(v, k)})
			}
		}
		return n.driveParentArgs(node, s, call)
	}
	return true
}

// drivePermission is Share's permission: the node's values, and the
// defaults n8n fills in of those its type shows (the email address of a
// user or group, a domain's name, Allow File Discovery of a domain or
// anyone). A type given by an expression is refused.
func (n *n8n) drivePermission(node *n8nNode, s *n8nScope, pv *importer.JV) (importer.Expr, bool) {
	typ := pv.Text("type")
	if strings.HasPrefix(typ, "=") {
		n.Problem(node.where, pv.Get("type"), "Unsupported expression", "the permission's type is converted when it is not an expression: the fields n8n sends depend on it.")
		return nil, false
	}
	defs := []struct {
		k     string
		v     importer.Expr
		shown bool
	}{
		{"role", importer.Str(""), true},
		{"type", importer.Str(""), true},
		{"emailAddress", importer.Str(""), typ == "user" || typ == "group"},
		{"domain", importer.Str(""), typ == "domain"},
		{"allowFileDiscovery", importer.Code("false"), typ == "domain" || typ == "anyone"},
	}
	var m []importer.Member
	for _, d := range defs {
		if v := pv.Get(d.k); v != nil {
			m = append(m, importer.Member{Name: d.k, Value: s.value(v, "permission."+d.k)})
		} else if d.shown {
			m = append(m, importer.Member{Name: d.k, Value: d.v})
		}
	}
	for _, k := range pv.Keys {
		switch k {
		case "role", "type", "emailAddress", "domain", "allowFileDiscovery":
		default:
			n.Problem(node.where, pv.Get(k), "Unsupported option", fmt.Sprintf("the permission's field %s is not converted.", k))
			return nil, false
		}
	}
	return importer.Object(m), true
}

// driveCopy is File → Copy: the file's ID as the locator holds it (n8n
// does not extract one from a URL, which is refused), the copy's name
// ("Copy of" the file's name the node recorded when it is empty), its
// folder unless Copy In The Same Folder (the default), and the options
// Copy Requires Writer Permission and Description.
func (n *n8n) driveCopy(node *n8nNode, s *n8nScope, call *appCall) bool {
	p := node.params
	rl := p.Get("fileId")
	if mode, _ := rlValue(rl); mode == "url" {
		n.Problem(node.where, rl.Get("mode"), "Unsupported option", "Copy's file by URL is not converted: n8n sends the URL as the file's ID.")
		return false
	}
	id, ok := n.driveID(node, s, "fileId")
	if !ok {
		return false
	}
	call.flow, call.what = "google_drive_file_copy", "copies the file"
	call.args = []importer.Member{{Name: "file_id", Value: id}}
	cached := "undefined" // JavaScript's `Copy of ${undefined}`
	if c := rl.Get("cachedResultName"); c != nil && c.Kind == 's' {
		cached = c.Str
	}
	name := p.Get("name")
	switch {
	case name == nil || name.Kind == 's' && name.Str == "":
		call.args = append(call.args, importer.Member{Name: "name", Value: importer.Str("Copy of " + cached)})
	case name.Kind == 's' && !strings.HasPrefix(name.Str, "="):
		call.args = append(call.args, importer.Member{Name: "name", Value: s.textValue(name, "name")})
	default:
		call.args = append(call.args, importer.Member{Name: "name", Value: importer.Join("[for x in [", s.textValue(name, "name"), `] : x == "" ? `, importer.Str("Copy of "+cached), " : x][0]")})
	}
	if same := p.Get("sameFolder"); same != nil && !(same.Kind == 'b' && same.Bool) {
		if same.Kind != 'b' {
			n.Problem(node.where, same, "Unsupported expression", "Copy In The Same Folder is converted when it is true or false.")
			return false
		}
		folder, ok := n.driveFolder(node, s, "folderId", "root")
		if !ok {
			return false
		}
		drive, ok := n.driveFolder(node, s, "driveId", "My Drive")
		if !ok {
			return false
		}
		// n8n's setParentFolder: the folder, else the shared drive, else root.
		parent := importer.Join("[for f in [", folder, "] : [for d in [", drive, `] : f != "root" ? f : (d != "" && d != "My Drive" ? d : "root")][0]][0]`)
		call.args = append(call.args, importer.Member{Name: "parents", Value: importer.Tuple([]importer.Expr{parent})})
	}
	if o := p.Get("options"); o != nil {
		for _, k := range o.Keys {
			switch k {
			case "copyRequiresWriterPermission":
				call.args = append(call.args, importer.Member{Name: "copy_requires_writer_permission", Value: s.value(o.Get(k), "copy_requires_writer_permission")})
			case "description":
				call.args = append(call.args, importer.Member{Name: "file_description", Value: s.textValue(o.Get(k), "file_description")})
			default:
				n.Problem(node.where, o.Get(k), "Unsupported option", fmt.Sprintf("Copy's option %s is not converted; Copy Requires Writer Permission and Description are.", k))
				return false
			}
		}
	}
	return true
}

// driveFolderCreate is Folder → Create (folder/create.operation.js): the
// name, the parent folder and drive, the options Folder Color and
// Simplify Output.
func (n *n8n) driveFolderCreate(node *n8nNode, s *n8nScope, call *appCall) bool {
	call.flow, call.what = "google_drive_folder_create", "creates the folder"
	if v := node.params.Get("name"); v != nil {
		call.args = append(call.args, importer.Member{Name: "name", Value: s.textValue(v, "name")})
	}
	if !n.driveParentArgs(node, s, call) {
		return false
	}
	if o := node.params.Get("options"); o != nil {
		for _, k := range o.Keys {
			name := map[string]string{"folderColorRgb": "folder_color_rgb", "simplifyOutput": "simplify_output"}[k]
			if name == "" {
				n.Problem(node.where, o.Get(k), "Unsupported option", fmt.Sprintf("Create Folder's option %s is not converted; Folder Color and Simplify Output are.", k))
				return false
			}
			call.args = append(call.args, importer.Member{Name: name, Value: s.value(o.Get(k), name)})
		}
	}
	return true
}
