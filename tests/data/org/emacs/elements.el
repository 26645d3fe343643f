;;; elements.el --- dump org-element's elements of Org files as JSON lines  -*- lexical-binding: t -*-
;; emacs -Q --batch -l elements.el FILE...
;; ELEMENTS_VISIT=1 emacs -Q --batch -l elements.el FILE...  (visit each file instead)
;; One line per file: {"file": NAME, "elements": [[TYPE, BEGIN, END, CB, CE, PROPS, LINE]...]}
;; where BEGIN/END/CB/CE are 0-based byte offsets (CB/CE null without contents), in
;; org-element-map order (document order, parents first); PROPS holds the properties
;; listed in `elements-props' for that type (timestamps as their raw text, symbols and
;; characters as strings); LINE is BEGIN's 1-based line.  Files are read as
;; utf-8-unix, like the headline oracle, or, with ELEMENTS_VISIT set, visited with
;; find-file as a user's Emacs does (it decides coding, BOM and EOL: dos, mac); offsets
;; are then mapped back to the file's bytes.  table-row elements are left out.
(require 'org)
(require 'org-element)
(require 'json)
(setq enable-local-variables nil)

(defconst elements-props
  '((headline :level :raw-value :todo-keyword :todo-type :priority :tags :commentedp :archivedp
              :pre-blank)
    (keyword :key :value)
    (src-block :language :switches :parameters :value :name :header)
    (example-block :switches :value)
    (export-block :type :value)
    (comment-block :value)
    (special-block :type)
    (item :bullet :checkbox :counter :tag :pre-blank)
    (plain-list :type)
    (drawer :drawer-name)
    (dynamic-block :block-name :arguments)
    (table :type)
    (node-property :key :value)
    (footnote-definition :label :pre-blank)
    (fixed-width :value)
    (comment :value)
    (planning :scheduled :deadline :closed)
    (babel-call :value))
  "Properties compared per element type, besides :post-blank for every element.")

(defvar elements-bom 0
  "Bytes of a UTF-8 BOM that visiting the file dropped from the buffer.")

(defvar elements-dos nil
  "Non-nil when the file was visited with dos EOL: each buffer newline is 2 bytes.")

(defun elements-byte (pos)
  (and pos (+ elements-bom (1- (position-bytes pos))
              (if elements-dos (1- (line-number-at-pos pos t)) 0))))

(defun elements-read (name)
  "Fill the current buffer with file NAME as the dumper's mode says; set the offsets' shift."
  (setq elements-bom 0 elements-dos nil)
  (if (getenv "ELEMENTS_VISIT")
      (let* ((org-inhibit-startup t)
             (buffer (find-file-noselect name t))
             (coding (buffer-local-value 'buffer-file-coding-system buffer)))
        (insert-buffer-substring buffer)
        (setq elements-dos (eq (coding-system-eol-type coding) 1))
        (when (coding-system-get coding :bom) (setq elements-bom 3))
        (kill-buffer buffer))
    (let ((coding-system-for-read 'utf-8-unix)) (insert-file-contents name))
    ;; A user's Emacs drops a UTF-8 BOM when it visits a file (utf-8-with-signature), so
    ;; a first line after one is a headline; offsets still count the file's bytes.
    (when (eq (char-after 1) #xfeff)
      (delete-region 1 2)
      (setq elements-bom 3))))

(defun elements-value (v)
  (cond ((null v) nil)
        ((eq v t) t)
        ((and (consp v) (eq (car v) 'timestamp)) (org-element-property :raw-value v))
        ((symbolp v) (symbol-name v))
        ((stringp v) (substring-no-properties v))
        ((consp v) (vconcat (mapcar #'elements-value v)))
        (t v)))

(defun elements-props-of (e)
  (let ((out (list (cons "post-blank" (org-element-property :post-blank e)))))
    (dolist (p (cdr (assq (org-element-type e) elements-props)))
      (let ((v (org-element-property p e)))
        (when (and (eq p :priority) v) (setq v (char-to-string v)))
        (when (memq p '(:commentedp :archivedp)) (setq v (and v t)))
        (push (cons (substring (symbol-name p) 1) (elements-value v)) out)))
    (nreverse out)))

(dolist (name command-line-args-left)
  (with-temp-buffer
    (elements-read name)
    (setq default-directory (file-name-directory (expand-file-name name)))
    (let ((org-inhibit-startup t)) (delay-mode-hooks (org-mode)))
    (let ((out nil) (last-pos 1) (last-line 1))
      (org-element-map (org-element-parse-buffer 'element)
          (remq 'table-row (append '(headline section) org-element-all-elements))
        (lambda (e)
          ;; Elements come in document order, so lines are counted incrementally.
          (let ((begin (org-element-property :begin e)))
            (save-excursion
              (goto-char last-pos)
              (while (search-forward "\n" begin t) (setq last-line (1+ last-line))))
            (setq last-pos begin))
          (push (vector (symbol-name (org-element-type e))
                        (elements-byte (org-element-property :begin e))
                        (elements-byte (org-element-property :end e))
                        (elements-byte (org-element-property :contents-begin e))
                        (elements-byte (org-element-property :contents-end e))
                        (elements-props-of e)
                        last-line)
                out)))
      (princ (json-encode `((file . ,name) (elements . ,(vconcat (nreverse out))))))
      (terpri))))
(setq command-line-args-left nil)
