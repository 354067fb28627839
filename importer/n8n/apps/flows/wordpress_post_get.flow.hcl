# WordPress: get a post — n8n's WordPress node v1, Post → Get, as it
# builds the request (Wordpress.node.js: the options Password and
# Context as the query when n8n finds them set; wordpressApiRequest:
# GET /wp-json/wp/v2/posts/ID on the credential's site, Basic auth); the
# item is the post WordPress answers with. Written by flowctl import from
# its registry (importer/n8n/apps); every import writes the same file.
# https://developer.wordpress.org/rest-api/reference/posts/#retrieve-a-post
flow "wordpress_post_get" {
  description = "Gets a WordPress post"
}

secret "wordpress_url" {
  description = "The WordPress site's URL (https://example.com) of n8n's WordPress credential, which the REST API's path /wp-json/wp/v2 follows"
}

secret "wordpress_username" {
  description = "The user name of n8n's WordPress credential"
}

secret "wordpress_password" {
  description = "The password of n8n's WordPress credential: an application password of the user"
}

input "post_id" {
  type        = any
  description = "The post's ID"
}

input "password" {
  type        = any
  default     = null
  description = "The post's password, when one protects it"
}

input "context" {
  type        = any
  default     = null
  description = "What the answer holds: view, embed or edit"
}

locals {
  # The options n8n sends when their value is one JavaScript holds true.
  options = { password = input.password, context = input.context }
}

step "get" {
  use    = "http"
  method = "GET"
  url    = "${secret.wordpress_url}/wp-json/wp/v2/posts/${input.post_id}"
  headers = {
    accept        = "application/json"
    authorization = "Basic ${base64encode("${secret.wordpress_username}:${secret.wordpress_password}")}"
    content-type  = "application/json"
    user-agent    = "n8n"
  }
  query = { for k, v in local.options : k => v if !(v == null || v == "" || v == 0 || v == false) }
}

output "items" {
  value       = [step.get.body]
  description = "The post, as n8n's node gives it: {id, date, slug, status, link, title, content…}"
}
