;;; elements.el --- dump org-element's elements of Org files as JSON lines  -*- lexical-binding: t -*-
;; emacs -Q --batch -l elements.el FILE...
;; One line per file: {"file": NAME, "elements": [[TYPE, BEGIN, END, CB, CE], ...]}
;; where BEGIN/END/CB/CE are 0-based byte offsets (CB/CE null without contents), in
;; org-element-map order (document order, parents first).  Files are read as
;; utf-8-unix, like the headline oracle.  table-row elements are left out.
(require 'org)
(require 'org-element)
(require 'json)
(setq enable-local-variables nil)

(defun elements-byte (pos) (and pos (1- (position-bytes pos))))

(dolist (name command-line-args-left)
  (with-temp-buffer
    (let ((coding-system-for-read 'utf-8-unix)) (insert-file-contents name))
    (setq default-directory (file-name-directory (expand-file-name name)))
    (let ((org-inhibit-startup t)) (delay-mode-hooks (org-mode)))
    (let ((out nil))
      (org-element-map (org-element-parse-buffer 'element)
          (remq 'table-row (append '(headline section) org-element-all-elements))
        (lambda (e)
          (push (vector (symbol-name (org-element-type e))
                        (elements-byte (org-element-property :begin e))
                        (elements-byte (org-element-property :end e))
                        (elements-byte (org-element-property :contents-begin e))
                        (elements-byte (org-element-property :contents-end e)))
                out)))
      (princ (json-encode `((file . ,name) (elements . ,(vconcat (nreverse out))))))
      (terpri))))
(setq command-line-args-left nil)
