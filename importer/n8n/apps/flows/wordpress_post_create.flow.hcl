# WordPress: create a post — n8n's WordPress node v1, Post → Create, as
# it builds the request (Wordpress.node.js: the title, and each
# additional field n8n finds set, a value JavaScript holds true;
# wordpressApiRequest: POST /wp-json/wp/v2/posts on the credential's
# site, Basic auth); the item is the post WordPress answers with.
# Written by flowctl import from its registry (importer/n8n/apps); every
# import writes the same file.
# https://developer.wordpress.org/rest-api/reference/posts/#create-a-post
flow "wordpress_post_create" {
  description = "Creates a WordPress post"
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

input "title" {
  type        = any
  default     = ""
  description = "The post's title"
}

input "author" {
  type        = any
  default     = null
  description = "The ID of the post's author"
}

input "content" {
  type        = any
  default     = null
  description = "The post's content (HTML)"
}

input "slug" {
  type        = any
  default     = null
  description = "The post's slug, its name in its URL"
}

input "password" {
  type        = any
  default     = null
  description = "The password that protects the post"
}

input "status" {
  type        = any
  default     = null
  description = "The post's status: publish, future, draft, pending or private"
}

input "comment_status" {
  type        = any
  default     = null
  description = "Whether the post is open to comments: open or closed"
}

input "ping_status" {
  type        = any
  default     = null
  description = "Whether the post can be pinged: open or closed"
}

input "sticky" {
  type        = any
  default     = null
  description = "Whether the post sticks to the top of the list"
}

input "template" {
  type        = any
  default     = null
  description = "The theme file that shows the post"
}

input "categories" {
  type        = any
  default     = null
  description = "The IDs of the post's categories"
}

input "tags" {
  type        = any
  default     = null
  description = "The IDs of the post's tags"
}

input "format" {
  type        = any
  default     = null
  description = "The post's format: standard, aside, chat, gallery, link, image, quote, status, video or audio"
}

input "date" {
  type        = any
  default     = null
  description = "When the post is published, in the site's time zone"
}

locals {
  # The fields n8n sends when their value is one JavaScript holds true
  # (not "", 0, false or null); the template, whenever the node has the
  # option, even empty.
  fields = {
    author         = input.author
    content        = input.content
    slug           = input.slug
    password       = input.password
    status         = input.status
    comment_status = input.comment_status
    ping_status    = input.ping_status
    sticky         = input.sticky
    categories     = input.categories
    tags           = input.tags
    format         = input.format
    date           = input.date
  }
  truthy = { for k, v in local.fields : k => v if !(v == null || v == "" || v == 0 || v == false) }
}

step "create" {
  use    = "http"
  method = "POST"
  url    = "${secret.wordpress_url}/wp-json/wp/v2/posts"
  headers = {
    accept        = "application/json"
    authorization = "Basic ${base64encode("${secret.wordpress_username}:${secret.wordpress_password}")}"
    content-type  = "application/json"
    user-agent    = "n8n"
  }
  body = merge({ title = input.title }, local.truthy, input.template == null ? {} : { template = input.template })
}

output "items" {
  value       = [step.create.body]
  description = "The post created, as n8n's node gives it: {id, date, slug, status, link, title, content…}"
}
