package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
)

// telegramOps are the operations of the Telegram node (Telegram.node.js,
// v1 to v1.2) converted, by resource.
var telegramOps = map[string][]string{
	"message": {"sendMessage", "deleteMessage", "sendChatAction", "sendPhoto", "sendVideo", "sendAudio", "sendDocument", "sendAnimation", "sendSticker"},
}

// telegramNode is the Telegram node: each operation a flow of the
// registry, called once for each item as n8n calls the Bot API for each
// item, on the credential's bot token. The item is the API's answer
// ({ok, result}), as n8n gives it.
func (n *n8n) telegramNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	resource, op, ok := n.appOperation(node, "Telegram", "message", "sendMessage", telegramOps)
	if !ok {
		return nil
	}
	s := n.appScope(node, in)
	call := appCall{cred: "telegramApi"}
	if c := p.Get("chatId"); c == nil || c.Kind == 's' && strings.TrimSpace(strings.TrimPrefix(c.Str, "=")) == "" {
		at := c
		if at == nil {
			at = p
		}
		n.Problem(node.where, at, "Missing parameter", "the node has no Chat ID; n8n sends the request without one, which the Bot API refuses.")
		return nil
	}
	chat := importer.Member{Name: "chat_id", Value: s.value(p.Get("chatId"), "chat_id")}
	switch resource + " " + op {
	case "message sendMessage":
		args, ok := n.telegramSendMessage(node, s)
		if !ok {
			return nil
		}
		call.flow, call.what = "telegram_message_send", "sends the message"
		call.args = append([]importer.Member{chat}, args...)
	case "message deleteMessage":
		call.flow, call.what = "telegram_message_delete", "deletes the message"
		call.args = []importer.Member{chat, {Name: "message_id", Value: s.value(p.Get("messageId"), "message_id")}}
	case "message sendPhoto", "message sendVideo", "message sendAudio", "message sendDocument", "message sendAnimation", "message sendSticker":
		args, ok := n.telegramSendFile(node, s)
		if !ok {
			return nil
		}
		kind := strings.ToLower(strings.TrimPrefix(op, "send"))
		call.flow, call.what = "telegram_message_send_file", "sends the "+kind
		call.args = append([]importer.Member{{Name: "kind", Value: importer.Str(kind)}, chat}, args...)
	case "message sendChatAction":
		action := p.Get("action")
		if action == nil {
			// n8n's default action.
			action = &importer.JV{Kind: 's', Str: "typing"}
		}
		call.flow, call.what = "telegram_chat_action", "shows the chat action"
		call.args = []importer.Member{chat, {Name: "action", Value: s.textValue(action, "action")}}
	}
	return n.appStep(node, in, s, call)
}

// telegramSendMessage reads Send Message's parameters as n8n's
// addAdditionalFields does: the additional fields as they are, Markdown
// unless a parse mode is set, no link preview (v1.2, unless set; before,
// when the text has no link — the registry flow tests it), n8n's
// attribution appended from v1.1 unless turned off, and the reply markup.
func (n *n8n) telegramSendMessage(node *n8nNode, s *n8nScope) ([]importer.Member, bool) {
	p := node.params
	if p.Boolean(false, "binaryData") {
		n.Problem(node.where, p.Get("binaryData"), "Unsupported option", "binary data is not converted.")
		return nil, false
	}
	args := []importer.Member{{Name: "text", Value: s.textValue(p.Get("text"), "text")}}
	fields := p.Get("additionalFields")
	attribution := node.version >= 1.1
	preview := false
	for _, k := range keysOf(fields) {
		v := fields.Get(k)
		switch k {
		case "appendAttribution":
			if v.Kind != 'b' {
				n.Problem(node.where, v, "Unsupported expression", "Append n8n Attribution is converted when it is true or false.")
				return nil, false
			}
			attribution = v.Bool
		case "parse_mode":
			if v.Kind == 's' && v.Str == "" {
				continue // n8n's Markdown, the flow's default
			}
			args = append(args, importer.Member{Name: k, Value: s.textValue(v, k)})
		case "disable_web_page_preview", "disable_notification", "reply_to_message_id", "message_thread_id":
			preview = preview || k == "disable_web_page_preview"
			args = append(args, importer.Member{Name: k, Value: s.value(v, k)})
		default:
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the additional field %s of Send Message is not converted.", k))
			return nil, false
		}
	}
	if !preview && node.version >= 1.2 {
		args = append(args, importer.Member{Name: "disable_web_page_preview", Value: importer.Code("true")})
	}
	if attribution {
		args = append(args, importer.Member{Name: "append_attribution", Value: importer.Code("true")})
		n.Warn(node.where, fields, "n8n attribution appended",
			"the message ends with n8n's \"This message was sent automatically with n8n\" and its link, as n8n's node sends it (Append n8n Attribution is on unless turned off); the link lacks n8n's instance ID. Set append_attribution = false to leave it out.")
	}
	markup, ok := n.telegramReplyMarkup(node, s)
	if !ok {
		return nil, false
	}
	if markup != nil {
		args = append(args, importer.Member{Name: "reply_markup", Value: markup})
	}
	return args, true
}

// telegramReplyMarkup is the reply_markup n8n's addAdditionalFields
// makes of Reply Markup, nil for none.
func (n *n8n) telegramReplyMarkup(node *n8nNode, s *n8nScope) (importer.Expr, bool) {
	p := node.params
	kind := "none"
	if v := p.Get("replyMarkup"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "Reply Markup is converted when it is one of its options, not an expression.")
			return nil, false
		}
		kind = v.Str
	}
	switch kind {
	case "none":
		return nil, true
	case "forceReply", "replyKeyboardRemove":
		return n.appJSON(s, p.Get(kind), kind, map[string]bool{}), true
	case "inlineKeyboard", "replyKeyboard":
	default:
		n.Problem(node.where, p.Get("replyMarkup"), "Unsupported option", fmt.Sprintf("the Reply Markup %q is not one n8n has.", kind))
		return nil, false
	}
	var rows []importer.Expr
	for i, row := range p.Items(kind, "rows") {
		if row.Get("row", "buttons") == nil {
			continue
		}
		var buttons []importer.Expr
		for j, b := range row.Items("row", "buttons") {
			ms := []importer.Member{{Name: "text", Value: s.value(b.Get("text"), fmt.Sprintf("button %d %d", i+1, j+1))}}
			extra := b.Get("additionalFields")
			for _, k := range keysOf(extra) {
				ms = append(ms, importer.Member{Name: k, Value: s.value(extra.Get(k), fmt.Sprintf("button %d %d %s", i+1, j+1, k))})
			}
			buttons = append(buttons, importer.Object(ms))
		}
		rows = append(rows, importer.Tuple(buttons))
	}
	key := "inline_keyboard"
	if kind == "replyKeyboard" {
		key = "keyboard"
	}
	ms := []importer.Member{{Name: key, Value: importer.Tuple(rows)}}
	if kind == "replyKeyboard" {
		opts := p.Get("replyKeyboardOptions")
		for _, k := range keysOf(opts) {
			ms = append(ms, importer.Member{Name: k, Value: s.value(opts.Get(k), "keyboard "+k)})
		}
	}
	return importer.Object(ms), true
}

// appJSON is a parameter's JSON (an object or array of n8n's
// collections) with each string's expressions translated; keys names
// the ones to leave out.
func (n *n8n) appJSON(s *n8nScope, v *importer.JV, path string, skip map[string]bool) importer.Expr {
	switch {
	case v == nil:
		return importer.Code("{}")
	case v.Kind == 'o':
		var ms []importer.Member
		for _, k := range keysOf(v) {
			if !skip[k] {
				ms = append(ms, importer.Member{Name: k, Value: n.appJSON(s, v.Get(k), path+" "+k, nil)})
			}
		}
		return importer.Object(ms)
	case v.Kind == 'a':
		var es []importer.Expr
		for i, e := range v.Arr {
			es = append(es, n.appJSON(s, e, fmt.Sprintf("%s %d", path, i+1), nil))
		}
		return importer.Tuple(es)
	}
	return s.value(v, path)
}

// keysOf are the keys of an object, in order; none for anything else.
func keysOf(v *importer.JV) []string {
	if v == nil || v.Kind != 'o' {
		return nil
	}
	return v.Keys
}

// telegramSendFile reads Send Photo's (Send Video's…) parameters as n8n
// does without binary data: the file's URL or file_id, the additional
// fields as they are, and the reply markup.
func (n *n8n) telegramSendFile(node *n8nNode, s *n8nScope) ([]importer.Member, bool) {
	p := node.params
	if p.Boolean(false, "binaryData") {
		n.Problem(node.where, p.Get("binaryData"), "Unsupported option", "binary data is not converted; a file given by URL or file_id is.")
		return nil, false
	}
	file := p.Get("file")
	if file == nil || file.Kind == 's' && strings.TrimSpace(strings.TrimPrefix(file.Str, "=")) == "" {
		n.Problem(node.where, p, "Missing parameter", "the node has no file (a URL or file_id); n8n sends the request without one, which the Bot API refuses.")
		return nil, false
	}
	args := []importer.Member{{Name: "file", Value: s.textValue(file, "file")}}
	fields := p.Get("additionalFields")
	for _, k := range keysOf(fields) {
		v := fields.Get(k)
		switch k {
		case "caption", "parse_mode":
			args = append(args, importer.Member{Name: k, Value: s.textValue(v, k)})
		case "disable_notification", "reply_to_message_id", "message_thread_id":
			args = append(args, importer.Member{Name: k, Value: s.value(v, k)})
		default:
			n.Problem(node.where, v, "Unsupported option", fmt.Sprintf("the additional field %s is not converted.", k))
			return nil, false
		}
	}
	markup, ok := n.telegramReplyMarkup(node, s)
	if !ok {
		return nil, false
	}
	if markup != nil {
		args = append(args, importer.Member{Name: "reply_markup", Value: markup})
	}
	return args, true
}
