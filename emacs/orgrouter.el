;;; orgrouter.el --- Route @agent requests in Org buffers with orgrouter  -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1"))
;; Keywords: outlines, tools
;; URL: https://github.com/orgrouter/orgrouter

;; This file is not part of GNU Emacs.

;;; Commentary:

;; orgrouter finds headlines addressed to an agent (`* @agent summarize this'),
;; runs them through skills or a language model, and writes the results back as
;; child headlines.  This package runs it from Emacs, asynchronously:
;;
;;   M-x orgrouter-route-buffer      send the buffer through `orgrouter route --stdin'
;;                                   and merge the result with `replace-buffer-contents',
;;                                   so point, marks and folding survive
;;   M-x orgrouter-route-file        route the visited file on disk, then revert
;;   M-x orgrouter-classify-region   show the sensor gate's JSON for the region
;;
;; Errors are shown in the echo area with orgrouter's own message.  When a route
;; finishes, `orgrouter-after-route-hook' runs with the buffer and a status symbol.

;;; Code:

(require 'subr-x)

(defgroup orgrouter nil
  "Route @agent requests in Org notes with the orgrouter program."
  :group 'org
  :prefix "orgrouter-")

(defcustom orgrouter-executable "orgrouter"
  "The orgrouter program: a name looked up in `exec-path', or a file name."
  :type 'string)

(defcustom orgrouter-arguments nil
  "Extra arguments given to every orgrouter command, after the command name.
For example (\"--config\" \"~/notes/orgrouter.toml\")."
  :type '(repeat string))

(defcustom orgrouter-after-route-hook nil
  "Functions run when a route finishes, with two arguments: BUFFER and STATUS.
STATUS is `changed' (results were merged into the buffer), `unchanged'
\(nothing to do), `stale' (the buffer was edited while orgrouter ran, so its
output was not applied), or `error'."
  :type 'hook)

(defvar orgrouter-last-error nil
  "The last error orgrouter reported, as shown in the echo area.")

(defvar-local orgrouter--process nil
  "The orgrouter process working on this buffer, if any.")

(defun orgrouter--program ()
  "Return the orgrouter program's absolute file name, or signal a `user-error'."
  (or (executable-find orgrouter-executable)
      (user-error "orgrouter: cannot find the program `%s'; customize `orgrouter-executable'"
                  orgrouter-executable)))

(defun orgrouter--stderr-text (buffer)
  "Return BUFFER's text trimmed, without the process status line Emacs appends."
  (if (buffer-live-p buffer)
      (with-current-buffer buffer
        (let ((text (buffer-string)))
          ;; A pipe :stderr buffer gets a line like "\nProcess orgrouter stderr finished\n".
          (setq text (replace-regexp-in-string "\n*Process [^\n]* stderr finished\n*\\'" "" text))
          (string-trim text)))
    ""))

(defun orgrouter--report-error (command code stderr)
  "Show that COMMAND exited with CODE, with orgrouter's STDERR text."
  (setq orgrouter-last-error
        (if (string-empty-p stderr)
            (format "orgrouter %s failed (exit %s)" command code)
          (format "orgrouter %s failed (exit %s): %s" command code stderr)))
  (message "%s" orgrouter-last-error))

(defun orgrouter--start (name command input-fn on-exit)
  "Run orgrouter COMMAND (a list of arguments) asynchronously.
NAME names the process.  INPUT-FN, if non-nil, is called with the process
to send its standard input.  ON-EXIT is called with the exit code, the
output buffer and the stderr text when the process ends."
  (let* ((out (generate-new-buffer (format " *%s*" name)))
         (err (generate-new-buffer (format " *%s stderr*" name)))
         (process-connection-type nil)
         (proc
          (make-process
           :name name
           :buffer out
           :stderr err
           :command (cons (orgrouter--program) command)
           :coding 'utf-8-unix
           :noquery t
           :connection-type 'pipe
           :sentinel
           (lambda (proc _event)
             (unless (process-live-p proc)
               ;; The stderr pipe may still hold unread output: drain it first.
               (let ((stderr-proc (get-buffer-process err)))
                 (when stderr-proc
                   (while (accept-process-output stderr-proc 0.05))))
               (unwind-protect
                   (funcall on-exit (process-exit-status proc) out
                            (orgrouter--stderr-text err))
                 (kill-buffer out)
                 (when (buffer-live-p err)
                   (let ((stderr-proc (get-buffer-process err)))
                     (when stderr-proc (delete-process stderr-proc)))
                   (kill-buffer err))))))))
    (when input-fn
      (funcall input-fn proc))
    proc))

(defun orgrouter--file-name ()
  "Return the file name orgrouter should report for this buffer."
  (or buffer-file-name (expand-file-name (buffer-name) default-directory)))

;;;###autoload
(defun orgrouter-route-buffer ()
  "Route the @agent requests in this buffer, asynchronously.
The buffer is sent to `orgrouter route --stdin'; when it answers, its output
replaces the buffer with `replace-buffer-contents', which keeps point, the
mark and folding wherever the text did not change.  If the buffer is edited
while orgrouter runs, its answer is dropped (rerun the command)."
  (interactive)
  (when (process-live-p orgrouter--process)
    (user-error "orgrouter is already working on this buffer"))
  (let* ((buffer (current-buffer))
         (tick (buffer-chars-modified-tick))
         (command (append (list "route" "--stdin" "--file-name" (orgrouter--file-name))
                          orgrouter-arguments)))
    (setq orgrouter--process
          (orgrouter--start
           "orgrouter-route" command
           (lambda (proc)
             (with-current-buffer buffer
               (save-restriction
                 (widen)
                 (process-send-region proc (point-min) (point-max))))
             (process-send-eof proc))
           (lambda (code out stderr)
             (orgrouter--route-done buffer tick code out stderr))))))

(defun orgrouter--route-done (buffer tick code out stderr)
  "Apply a finished route: BUFFER was at TICK; CODE, OUT and STDERR are its result."
  (let ((status
         (cond
          ((not (buffer-live-p buffer)) 'stale)
          ((/= code 0)
           (orgrouter--report-error "route" code stderr)
           'error)
          ((/= tick (with-current-buffer buffer (buffer-chars-modified-tick)))
           (message "orgrouter: the buffer changed while routing; nothing applied (run it again)")
           'stale)
          (t (orgrouter--apply-output buffer out)))))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (setq orgrouter--process nil)
        (when (eq status 'changed)
          (message "orgrouter: routed %s" (buffer-name buffer)))))
    (run-hook-with-args 'orgrouter-after-route-hook buffer status)))

(defun orgrouter--apply-output (buffer out)
  "Merge OUT's text into BUFFER if it differs; return `changed' or `unchanged'."
  (with-current-buffer buffer
    (save-restriction
      (widen)
      (if (zerop (compare-buffer-substrings buffer (point-min) (point-max)
                                            out nil nil))
          'unchanged
        ;; Within 2 seconds the minimal diff is kept; past that Emacs replaces
        ;; the text wholesale, which is still correct, only less gentle on markers.
        (replace-buffer-contents out 2.0)
        'changed))))

;;;###autoload
(defun orgrouter-route-file ()
  "Route the file this buffer visits, on disk, then revert the buffer.
The buffer must be saved first: orgrouter never writes a file that has
unsaved changes in Emacs."
  (interactive)
  (unless buffer-file-name
    (user-error "orgrouter: this buffer is not visiting a file"))
  (when (buffer-modified-p)
    (user-error "orgrouter: save the buffer first (or use `orgrouter-route-buffer')"))
  (when (process-live-p orgrouter--process)
    (user-error "orgrouter is already working on this buffer"))
  (let ((buffer (current-buffer))
        (file buffer-file-name))
    (setq orgrouter--process
          (orgrouter--start
           "orgrouter-route-file"
           (append (list "route") orgrouter-arguments (list file))
           nil
           (lambda (code _out stderr)
             (orgrouter--route-file-done buffer code stderr))))))

(defun orgrouter--route-file-done (buffer code stderr)
  "Revert BUFFER after an on-disk route that exited with CODE and STDERR."
  (let ((status
         (cond
          ((not (buffer-live-p buffer)) 'stale)
          ((/= code 0)
           (orgrouter--report-error "route" code stderr)
           'error)
          (t
           (with-current-buffer buffer
             (cond
              ((verify-visited-file-modtime buffer) 'unchanged)
              ((buffer-modified-p)
               (message "orgrouter: the file changed on disk and the buffer has edits; \
use M-x revert-buffer")
               'stale)
              (t
               (revert-buffer t t t)
               'changed)))))))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (setq orgrouter--process nil)))
    (run-hook-with-args 'orgrouter-after-route-hook buffer status)))

;;;###autoload
(defun orgrouter-classify-region (beg end)
  "Show the sensor gate's JSON for the text between BEG and END.
The JSON goes to the buffer *orgrouter classify*, which is displayed."
  (interactive "r")
  (let ((text (buffer-substring-no-properties beg end)))
    (orgrouter--start
     "orgrouter-classify"
     (append (list "classify") orgrouter-arguments (list "-"))
     (lambda (proc)
       (process-send-string proc text)
       (process-send-eof proc))
     (lambda (code out stderr)
       (if (/= code 0)
           (orgrouter--report-error "classify" code stderr)
         (let ((json (with-current-buffer out (buffer-string))))
           (with-current-buffer (get-buffer-create "*orgrouter classify*")
             (let ((inhibit-read-only t))
               (erase-buffer)
               (insert json)
               (goto-char (point-min))
               (when (fboundp 'js-json-mode) (funcall 'js-json-mode))
               (setq buffer-read-only t))
             (display-buffer (current-buffer)))))))))

(provide 'orgrouter)

;;; orgrouter.el ends here
