package n8n

import (
	"strings"
	"testing"
)

func TestJSCodeText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`throw new Error('Duration must be between 1 and 20 minutes')`, `throw new Error('                                         ')`},
		{"html += `<b>Duration:</b> ${item.duration}\n`", "html += `                 ${item.duration}\n`"},
		{"x = `a ${ {k: Duration}.k } b`", "x = `  ${ {k: Duration}.k }  `"},
		{`// Duration here` + "\n" + `a = b / c / d`, "                \n" + `a = b / c / d`},
		{`if (/^[a-z]'{2}$/.test(s)) return /"/`, `if (/           /.test(s)) return / /`},
		{`/* $now */ $now.toISO()`, `           $now.toISO()`},
		{`s = "a \" $env"; t = $env.X`, `s = "         "; t = $env.X`},
	} {
		if got := jsCodeText(c.in); got != c.want {
			t.Errorf("jsCodeText(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}

// From PDF_and_Document_Processing__Extract_data_from_resume_and_create_PDF_with_Gotenberg.json
// (enescingoz+awesome-n8n-templates): "Convert employment history to
// HTML" writes the word Duration in its HTML, which names no luxon
// Duration: the code is converted. One that calls Duration is refused.
func TestCodeWordsInStrings(t *testing.T) {
	node := `"name": "Convert employment history to HTML", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"mode": "runOnceForEachItem", "jsCode": "function convertToHTML(list) {\n let html = '';\n\n list.forEach((item, index) => {\n if (index > 0) {\n html += '<br />'; // Add a new line if it's not the first item\n }\n html += ` + "`<b>Position:</b> ${item.position}\\n<b>Company:</b> ${item.company}\\n<br />\\n<b>Duration:</b> ${item.duration}\\n<br />\\n<b>Responsibilities:</b>\\n`" + `;\n\n item.responsibilities.forEach((responsibility, i) => {\n html += ` + "`- ${responsibility}`" + `;\n if (i < item.responsibilities.length - 1 || index < list.length - 1) {\n html += '<br />'; // Add new line if it's not the last responsibility in the last item\n }\n });\n });\n\n return html;\n}\n\n// Assuming payload is already defined\nconst payload = $input.item.json.employment_history;\n\nconst htmlOutput = convertToHTML(payload);\nreturn {\n htmlOutput\n};"}`
	flow := mustValidate(t, workflow("w", setData, node))
	if !strings.Contains(flow, `mode     = "runOnceForEachItem"`) {
		t.Errorf("no Code step in:\n%s", flow)
	}
	_, diags := importWhole(t, workflow("w", setData,
		`"name": "Code", "type": "n8n-nodes-base.code", "typeVersion": 2, "parameters": {"jsCode": "return [{ json: { d: `+"`${Duration.fromObject({ hours: 1 }).toISO()}`"+` } }];"}`))
	if !strings.Contains(diags.Error(), "the code uses Duration") {
		t.Errorf("Duration called: %v, want Unsupported code", diags)
	}
}
