# Gmail: send a message — n8n's Gmail node v2, Message → Send, for one
# item. Written by flowctl import from its registry (importer/n8n/apps);
# every import writes the same file. The js block builds the message as
# n8n's node fills it (GenericFunctions.js: prepareEmailsInput,
# prepareEmailBody), in one MIME part of its type (n8n's nodemailer may
# add an empty text part), without attachments.
# https://developers.google.com/gmail/api/reference/rest/v1/users.messages/send
flow "gmail_message_send" {
  description = "Sends a Gmail message"
}

secret "gmail" {
  description = "An OAuth2 access token of the Google account n8n's Gmail credential stands for, with the scope https://www.googleapis.com/auth/gmail.modify; flowctl does not refresh it"
}

input "api_url" {
  type        = string
  default     = "https://www.googleapis.com"
  description = "The Gmail API's root URL"
}

input "send_to" {
  type        = string
  description = "The recipients, comma-separated addresses"
}

input "subject" {
  type    = string
  default = ""
}

input "message" {
  type        = string
  default     = ""
  description = "The message's text or HTML"
}

input "email_type" {
  type        = string
  default     = "html"
  description = "html or text"
}

input "cc" {
  type        = string
  default     = ""
  description = "Comma-separated addresses"
}

input "bcc" {
  type        = string
  default     = ""
  description = "Comma-separated addresses"
}

input "reply_to" {
  type        = string
  default     = ""
  description = "Comma-separated addresses"
}

input "sender_name" {
  type        = string
  default     = ""
  description = "The sender's name, before the account's address (read from the account's profile)"
}

input "attribution" {
  type        = bool
  default     = false
  description = "Append n8n's attribution, as n8n's Append n8n Attribution does (on an HTML message its link without n8n's instance ID)"
}

block "gmail_message" {
  runtime     = "js"
  description = "The message as the API's raw field: RFC 2822, base64url"
  input "fields" {
    type = any
  }
  output "raw" {
    type = string
  }
  source = <<-JS
    function prepareEmailsInput(input, fieldName) {
      let emails = '';
      input.split(',').forEach((entry) => {
        const email = entry.trim();
        if (email.indexOf('@') === -1) {
          throw new Error("Invalid email address: the email address '" + email + "' in the '" + fieldName + "' field isn't valid");
        }
        if (email.includes('<') && email.includes('>')) emails += email + ',';
        else emails += '<' + email + '>, ';
      });
      return emails;
    }
    function utf8(s) {
      const out = [];
      for (let i = 0; i < s.length; i++) {
        let c = s.codePointAt(i);
        if (c > 0xffff) i++;
        if (c < 0x80) out.push(c);
        else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
        else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
        else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      }
      return out;
    }
    const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    function base64(bytes) {
      let s = '';
      for (let i = 0; i < bytes.length; i += 3) {
        const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
        s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
        s += i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=';
        s += i + 2 < bytes.length ? B64[n & 63] : '=';
      }
      return s;
    }
    // A header's text: as it is in ASCII, else an RFC 2047 encoded word.
    function headerText(s) {
      return /^[\x20-\x7e]*$/.test(s) ? s : '=?UTF-8?B?' + base64(utf8(s)) + '?=';
    }
    // Addresses as prepareEmailsInput gives them, one header line.
    function addresses(list) {
      return list.split(',').map((a) => a.trim()).filter((a) => a !== '').map((a) => {
        const m = a.match(/^(.*)<([^>]*)>$/);
        if (!m) return a;
        const name = m[1].trim();
        return name ? headerText(name) + ' <' + m[2] + '>' : m[2];
      }).join(', ');
    }
    function execute(input) {
      const f = input.fields;
      const to = prepareEmailsInput(f.send_to, 'To');
      const cc = f.cc ? prepareEmailsInput(f.cc, 'CC') : '';
      const bcc = f.bcc ? prepareEmailsInput(f.bcc, 'BCC') : '';
      const replyTo = f.reply_to ? prepareEmailsInput(f.reply_to, 'ReplyTo') : '';
      let message = (f.message || '').trim();
      // prepareEmailBody's attribution; the link's campaign lacks n8n's
      // instance ID, which a flow does not have.
      if (f.attribution && f.email_type === 'html') {
        const link = 'https://n8n.io/?utm_source=n8n-internal&utm_medium=powered_by&utm_campaign=n8n-nodes-base.gmail';
        message = '\n\t\t\t' + message + '\n\t\t\t<br>\n\t\t\t<br>\n\t\t\t---\n\t\t\t<br>\n\t\t\t<em>This email was sent automatically with <a href="' + link + '" target="_blank">n8n</a></em>\n\t\t\t';
      } else if (f.attribution) {
        message = message + '\n\n---\nThis email was sent automatically with n8n\nhttps://n8n.io';
      }
      const lines = [];
      if (f.from) lines.push('From: ' + (f.sender_name ? headerText(f.sender_name) + ' <' + f.from + '>' : f.from));
      lines.push('To: ' + addresses(to));
      if (cc) lines.push('Cc: ' + addresses(cc));
      if (bcc) lines.push('Bcc: ' + addresses(bcc));
      if (replyTo) lines.push('Reply-To: ' + addresses(replyTo));
      lines.push('Subject: ' + headerText(f.subject || ''));
      lines.push('MIME-Version: 1.0');
      lines.push('Content-Type: ' + (f.email_type === 'html' ? 'text/html' : 'text/plain') + '; charset=utf-8');
      lines.push('Content-Transfer-Encoding: base64');
      const body = base64(utf8(message)).replace(/(.{76})/g, '$1\r\n');
      const mime = lines.join('\r\n') + '\r\n\r\n' + body;
      return { raw: base64(utf8(mime)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '') };
    }
  JS
}

# The sender's name goes before the account's address, which n8n reads
# from the account's profile.
step "profile" {
  use      = "http"
  for_each = input.sender_name == "" ? [] : [true]
  url      = "${input.api_url}/gmail/v1/users/me/profile"
  headers  = { accept = "application/json", authorization = "Bearer ${secret.gmail}" }
}

step "message" {
  use = "gmail_message"
  fields = {
    send_to     = input.send_to
    subject     = input.subject
    message     = input.message
    email_type  = input.email_type
    cc          = input.cc
    bcc         = input.bcc
    reply_to    = input.reply_to
    sender_name = input.sender_name
    from        = length(step.profile) > 0 ? step.profile[0].body.emailAddress : ""
    attribution = input.attribution
  }
}

step "send" {
  use     = "http"
  method  = "POST"
  url     = "${input.api_url}/gmail/v1/users/me/messages/send"
  headers = { accept = "application/json", authorization = "Bearer ${secret.gmail}" }
  body    = { raw = step.message.raw }
}

output "items" {
  value       = [step.send.body]
  description = "The message sent, as n8n's node gives it: its id, threadId and labelIds"
}
