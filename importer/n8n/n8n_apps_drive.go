package n8n

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// driveOps are the operations of the Google Drive node v3
// (GoogleDriveV2.node.js) converted, by resource.
var driveOps = map[string][]string{
	"file":       {"copy", "createFromText", "deleteFile", "download", "move", "share"},
	"fileFolder": {"search"},
	"folder":     {"create"},
}

// googleDriveNode is the Google Drive node v3, for each item. Upload and
// Update send the item's file with its file name, which the flow's files
// do not carry: they are refused with that reason. Download gives the file as the
// item's binary data (n8n_apps_drive_files.go).
func (n *n8n) googleDriveNode(node *n8nNode, in n8nItems) []n8nItems {
	if n.tooOld(node, "Google Drive", 3) {
		return nil
	}
	p := node.params
	call, ok := n.googleAuth(node, "Google Drive", "googleDriveOAuth2Api")
	if !ok {
		return nil
	}
	resource, op := p.Text("resource"), p.Text("operation")
	if resource == "" {
		resource = "file"
	}
	// Each resource's default operation (its *.resource.js).
	defOp := map[string]string{"file": "upload", "fileFolder": "search", "folder": "create", "drive": "create"}[resource]
	if op == "" {
		op = defOp
	}
	if resource == "file" && (op == "upload" || op == "update") {
		n.Problem(node.where, orParams(p.Get("operation"), node), "Unsupported operation",
			fmt.Sprintf("the Google Drive node's file %s operation is not converted: it sends the item's file with its name (n8n's binary data's fileName, the file's name and original name), which the flow's files ({data, mimeType}) do not carry.", op))
		return nil
	}
	resource, op, ok = n.appOperation(node, "Google Drive", "file", defOp, driveOps)
	if !ok {
		return nil
	}
	s := n.appScope(node, in)
	switch resource + " " + op {
	case "file download":
		prop, ok := n.driveDownload(node, in, s, &call)
		if !ok {
			return nil
		}
		return n.driveFiles(node, in, n.appStep(node, in, s, call), prop)
	case "file deleteFile":
		id, ok := n.driveID(node, s, "fileId")
		if !ok {
			return nil
		}
		call.flow, call.what = "google_drive_file_delete", "deletes the file"
		call.args = []importer.Member{{Name: "file_id", Value: id}}
		if perm := p.Get("options", "deletePermanently"); perm != nil {
			call.args = append(call.args, importer.Member{Name: "permanently", Value: s.value(perm, "permanently")})
		}
	case "file share", "file move", "file copy", "file createFromText":
		if !n.driveFileOp(node, s, op, &call) {
			return nil
		}
	case "folder create":
		if !n.driveFolderCreate(node, s, &call) {
			return nil
		}
	case "fileFolder search":
		if !n.driveSearch(node, s, &call) {
			return nil
		}
	}
	return n.appStep(node, in, s, call)
}

// driveFileURL is n8n's GOOGLE_DRIVE_FILE_URL_REGEX (Google/constants.js),
// which RE2 reads as JavaScript does: no look-around, no back-reference.
const driveFileURL = `https:\/\/(?:drive|docs)\.google\.com(?:\/.*|)\/d\/([0-9a-zA-Z\-_]+)(?:\/.*|)`

// driveID is a file ID a resource locator gives from the list, by ID,
// or by URL: the ID n8n's pattern (GOOGLE_DRIVE_FILE_URL_REGEX) finds in
// it, its first group; a URL it does not match fails, as in n8n.
func (n *n8n) driveID(node *n8nNode, s *n8nScope, param string) (importer.Expr, bool) {
	rl := node.params.Get(param)
	mode, v := rlValue(rl)
	if v == nil || v.Kind == 's' && strings.TrimPrefix(v.Str, "=") == "" {
		n.Problem(node.where, orParams(rl, node), "Unsupported option", "the node names no file; n8n fails the node on it too.")
		return nil, false
	}
	if mode == "url" && v.Kind == 's' && !strings.HasPrefix(v.Str, "=") {
		m := regexp.MustCompile(driveFileURL).FindStringSubmatch(v.Str)
		if m == nil {
			n.Problem(node.where, v, "Unsupported option", "the file's URL is not one of a Google Drive file (n8n's pattern finds no ID in it); n8n fails the node on it.")
			return nil, false
		}
		return importer.Str(m[1]), true
	}
	id := s.textValue(v, importer.Snake(param))
	if mode == "url" {
		id = importer.Join(importer.Call("regex", importer.Str(driveFileURL), id), "[0]")
	}
	return id, true
}
