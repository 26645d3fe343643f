;;; orgrouter.el --- Route @agent requests in Org buffers with orgrouter  -*- lexical-binding: t; -*-

;; Author: The orgrouter authors
;; Maintainer: The orgrouter authors
;; Version: 0.2.0
;; Package-Requires: ((emacs "27.1") (org "9.5") (jsonrpc "1.0.9"))
;; Keywords: outlines, tools
;; URL: https://github.com/orgrouter/orgrouter

;; This file is not part of GNU Emacs.

;;; Commentary:

;; orgrouter finds headlines addressed to an agent (`* @agent summarize this'),
;; runs them through skills or a language model, and writes the results back as
;; child headlines.  This package runs it from Emacs.
;;
;; It talks to one `orgrouter serve' process per Emacs (JSON-RPC over pipes,
;; started on first use and again if it dies), which answers a route with the
;; edits to make; they are applied directly, so point, the mark, folding and
;; undo (one step) survive.  Without the server (`orgrouter-use-server' nil, or
;; a program too old to serve) it pipes the buffer through
;; `orgrouter route --stdin' instead.
;;
;; Turn on `orgrouter-mode' in Org buffers for its keys (prefix `C-c _', see
;; `orgrouter-command-map'; bind that map elsewhere if you prefer):
;;
;;   C-c _ r  `orgrouter-route-buffer'      route every request in the buffer
;;   C-c _ s  `orgrouter-route-subtree'     route the requests of the subtree at point
;;   C-c _ f  `orgrouter-route-file'        route the visited file on disk, then revert
;;   C-c _ c  `orgrouter-classify-at-point' show the sensor gate for the request at point
;;   C-c _ a  `orgrouter-approve'           approve the WAITING item at point
;;   C-c _ x  `orgrouter-reject'            reject the WAITING item at point
;;   C-c _ l  `orgrouter-list-pending'      list what waits on you across the notes
;;   C-c _ k  `orgrouter-abort'             abort the route running in this buffer
;;
;; Every outcome is reported in the echo area; while a route runs the mode line
;; says so.  When a route finishes, `orgrouter-after-route-hook' runs.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'json)
(require 'jsonrpc)
(require 'org)
(require 'seq)
(require 'tabulated-list)

(defgroup orgrouter nil
  "Route @agent requests in Org notes with the orgrouter program."
  :group 'org
  :prefix "orgrouter-")

(defcustom orgrouter-executable "orgrouter"
  "The orgrouter program: a name looked up in variable `exec-path', or a file name."
  :type 'string)

(defcustom orgrouter-arguments nil
  "Extra arguments given to every orgrouter command, after the command name.
For example (\"--config\" \"~/notes/orgrouter.toml\").  The server gets
them too, so both paths answer alike."
  :type '(repeat string))

(defcustom orgrouter-use-server t
  "Non-nil means talk to a long-lived `orgrouter serve' process.
When nil, or when the server cannot start, each command runs its own
orgrouter process (`orgrouter route --stdin' for a route)."
  :type 'boolean)

(defcustom orgrouter-timeout 600
  "Seconds to wait for the server to answer a route before giving up."
  :type 'number)

(defcustom orgrouter-fold-results t
  "Non-nil means fold the property drawers a route inserts."
  :type 'boolean)

(defcustom orgrouter-waiting-keyword "WAITING"
  "The TODO keyword of an approval nobody has decided yet."
  :type 'string)

(defcustom orgrouter-approve-keyword "APPROVED"
  "The keyword that approves a held intent (orgrouter's agent.approve_keyword)."
  :type 'string)

(defcustom orgrouter-reject-keyword "REJECTED"
  "The keyword that rejects a held intent (orgrouter's agent.reject_keyword)."
  :type 'string)

(defcustom orgrouter-after-route-hook nil
  "Functions run when a route finishes, with two arguments: BUFFER and STATUS.
STATUS is `changed' (results were merged into the buffer), `unchanged'
\(nothing to do), `stale' (the buffer was edited while orgrouter ran, so its
output was not applied), `aborted', or `error'."
  :type 'hook)

(defvar orgrouter-last-error nil
  "The last error orgrouter reported, as shown in the echo area.")

(defvar orgrouter-last-message nil
  "The last outcome orgrouter reported in the echo area.")

(defvar orgrouter-last-route-path nil
  "How the last route was answered: `server' or `process'.")

(defvar orgrouter--connection nil
  "The connection to the `orgrouter serve' process, if one runs.")

(defvar-local orgrouter--process nil
  "The orgrouter process working on this buffer, if any (not the server).")

(defvar-local orgrouter--running nil
  "A token for the route running in this buffer, or nil.
A reply is applied only while the token it was sent with is still here,
so `orgrouter-abort' drops a reply by clearing it.")

;;;; Programs and processes

(defun orgrouter--program ()
  "Return the orgrouter program's absolute file name, or signal a `user-error'."
  (or (executable-find orgrouter-executable)
      (user-error "Orgrouter: cannot find the program `%s'; customize `orgrouter-executable'"
                  orgrouter-executable)))

(defun orgrouter--stderr-text (buffer)
  "Return BUFFER's text, trimmed and without the process status line.
Emacs appends that line to a pipe's stderr buffer when the pipe closes."
  (if (buffer-live-p buffer)
      (with-current-buffer buffer
        (let ((text (buffer-string)))
          ;; A pipe :stderr buffer gets a line like "\nProcess orgrouter stderr finished\n".
          (setq text (replace-regexp-in-string "\n*Process [^\n]* stderr finished\n*\\'" "" text))
          (string-trim text)))
    ""))

(defun orgrouter--report-failure (command code stderr)
  "Show that COMMAND exited with CODE, with orgrouter's STDERR text."
  (setq orgrouter-last-error
        (if (string-empty-p stderr)
            (format "orgrouter %s failed (exit %s)" command code)
          (format "orgrouter %s failed (exit %s): %s" command code stderr)))
  (orgrouter--message orgrouter-last-error))

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

;;;; The server

(defun orgrouter--json-encode (object)
  "Return OBJECT (plists, vectors, :json-false, nil for null) as JSON text."
  (if (fboundp 'json-serialize)
      (json-serialize object :false-object :json-false :null-object nil)
    ;; An Emacs built without libjansson.
    (let ((json-false :json-false)
          (json-null nil))
      (json-encode object))))

(defun orgrouter--json-parse (text)
  "Return the JSON TEXT as plists and vectors (false and null are nil)."
  (if (fboundp 'json-parse-string)
      (json-parse-string text :object-type 'plist :null-object nil :false-object nil)
    (let ((json-object-type 'plist)
          (json-array-type 'vector)
          (json-false nil))
      (json-read-from-string text))))

(defclass orgrouter--server-connection (jsonrpc-process-connection) ()
  "The connection to `orgrouter serve', sending large messages cheaply.")

(cl-defmethod jsonrpc-connection-send ((connection orgrouter--server-connection)
                                       &rest args &key method &allow-other-keys)
  "Send ARGS, a JSON-RPC message, to CONNECTION; METHOD is its method.
As jsonrpc.el does, but without its `format' of the whole message (60 ms
on a 1 MB buffer) or its event log: the JSON is encoded once and written
as bytes after its header."
  (when method
    (setq args (plist-put args :method
                          (if (keywordp method) (substring (symbol-name method) 1)
                            (format "%s" method)))))
  (let* ((json (encode-coding-string
                (orgrouter--json-encode (append (list :jsonrpc "2.0") args))
                'utf-8-unix t))
         (proc (jsonrpc--process connection)))
    (process-send-string proc (format "Content-Length: %d\r\n\r\n" (length json)))
    (process-send-string proc json)))

(defun orgrouter--server-live-p ()
  "Return non-nil when the server connection is up."
  (and orgrouter--connection (jsonrpc-running-p orgrouter--connection)))

(defun orgrouter--server ()
  "Return a live server connection, starting one if needed; nil if none can run."
  (cond
   ((not orgrouter-use-server) nil)
   ((orgrouter--server-live-p) orgrouter--connection)
   (t
    (setq orgrouter--connection nil)
    (condition-case nil
        (let* ((program (orgrouter--program))
               ;; The server outlives this buffer: start it where it can stay.
               (default-directory (expand-file-name "~/"))
               (name "orgrouter-server")
               (conn
                (make-instance
                 'orgrouter--server-connection
                 :name name
                 ;; Logging a megabyte message costs more than the route itself.
                 :events-buffer-scrollback-size 0
                 :notification-dispatcher #'ignore
                 :request-dispatcher #'ignore
                 :on-shutdown (lambda (conn)
                                (when (eq conn orgrouter--connection)
                                  (setq orgrouter--connection nil)))
                 :process
                 (lambda ()
                   (let ((proc (make-process
                                :name name
                                :command (append (list program "serve") orgrouter-arguments)
                                :connection-type 'pipe
                                :coding 'utf-8-emacs-unix
                                :noquery t
                                ;; jsonrpc.el expects exactly this stderr buffer name.
                                :stderr (get-buffer-create (format "*%s stderr*" name)))))
                     ;; Messages are sent encoded already (see above).
                     (set-process-coding-system proc 'utf-8-emacs-unix 'binary)
                     proc)))))
          (setq orgrouter--connection conn))
      (error nil)))))

(defun orgrouter-stop-server ()
  "Stop the `orgrouter serve' process.
The next command that needs it starts a new one."
  (interactive)
  (let ((conn orgrouter--connection))
    (setq orgrouter--connection nil)
    (when (and conn (jsonrpc-running-p conn))
      (ignore-errors (jsonrpc-request conn :shutdown nil :timeout 5))
      (ignore-errors (jsonrpc-notify conn :exit nil))
      (let ((proc (jsonrpc--process conn)))
        (with-timeout (2 (delete-process proc))
          (while (process-live-p proc)
            (accept-process-output proc 0.05)))))))

(defun orgrouter--server-died-p (error)
  "Return non-nil when ERROR (a JSON-RPC error plist) means the server went away."
  (or (not (orgrouter--server-live-p))
      (eql (plist-get error :code) -1)))

(defun orgrouter--call (method params on-result on-error fallback)
  "Call server METHOD with PARAMS; ON-RESULT or ON-ERROR get the answer.
When there is no server, or it dies before answering, call FALLBACK with
no arguments instead.  Return `server' or `process', the path taken."
  (let ((conn (orgrouter--server))
        (sent nil))
    (when conn
      (condition-case nil
          (progn
            (jsonrpc-async-request
             conn method params
             :success-fn on-result
             :error-fn (lambda (error)
                         (if (orgrouter--server-died-p error)
                             (funcall fallback)
                           (funcall on-error error)))
             :timeout orgrouter-timeout
             :timeout-fn (lambda ()
                           (funcall on-error
                                    (list :message (format "no answer in %s seconds"
                                                           orgrouter-timeout)))))
            (setq sent t))
        (error nil)))
    (if sent
        'server
      (funcall fallback)
      'process)))

(defun orgrouter--error-text (error)
  "Return the message of a server ERROR plist, with its file and line."
  (let* ((data (plist-get error :data))
         (message (or (plist-get error :message) "unknown error")))
    (if (and data (plist-get data :file) (not (string-prefix-p (plist-get data :file) message)))
        (format "%s%s: %s" (plist-get data :file)
                (if (plist-get data :line) (format ":%s" (plist-get data :line)) "")
                message)
      message)))

;;;; Routing a buffer

(defun orgrouter--mode-line (running)
  "Show in the mode line that a route is RUNNING (or no longer)."
  (setq mode-line-process (and running '(" orgrouter:routing")))
  (force-mode-line-update))

(defun orgrouter--begin-route ()
  "Return the token of a new route in this buffer.
Signal a `user-error' if one is running already."
  (when orgrouter--running
    (user-error "Orgrouter is already working on this buffer (M-x orgrouter-abort stops it)"))
  (let ((token (list 'route)))
    (setq orgrouter--running token)
    (orgrouter--mode-line t)
    token))

(defun orgrouter--finish (buffer token status &optional text)
  "End BUFFER's route TOKEN with STATUS, showing TEXT; run the hook.
Nothing happens when the route was aborted or replaced meanwhile."
  (when (and (buffer-live-p buffer)
             (eq token (buffer-local-value 'orgrouter--running buffer)))
    (with-current-buffer buffer
      (setq orgrouter--running nil)
      (setq orgrouter--process nil)
      (orgrouter--mode-line nil))
    (when text (orgrouter--message text))
    (run-hook-with-args 'orgrouter-after-route-hook buffer status)))

(defun orgrouter--message (text)
  "Show TEXT in the echo area and keep it in `orgrouter-last-message'."
  (setq orgrouter-last-message text)
  (message "%s" text))

(defun orgrouter--summary (buffer routed results)
  "Return the message for a route of BUFFER that ROUTED requests into RESULTS.
It reads as `orgrouter route --stdin' says it, whichever path answered."
  (format "orgrouter: %s: routed %d request%s, %d result%s"
          (buffer-name buffer) routed (if (= routed 1) "" "s")
          results (if (= results 1) "" "s")))

;;;###autoload
(defun orgrouter-route-buffer ()
  "Route the @agent requests in this buffer, asynchronously.
The whole buffer is routed, even when narrowed.  The results are applied
as edits, so point, the mark, folding and undo (one step) survive.  If the
buffer is edited while orgrouter runs, its answer is dropped (rerun it)."
  (interactive)
  (orgrouter--route nil))

;;;###autoload
(defun orgrouter-route-subtree ()
  "Route the @agent requests of the subtree at point, asynchronously.
The rest of the buffer is context only (its settings and tags count).
Without the server the whole buffer is routed, and the message says so."
  (interactive)
  (unless (derived-mode-p 'org-mode)
    (user-error "Orgrouter: not an Org buffer"))
  (save-excursion
    (save-restriction
      (widen)
      (unless (org-before-first-heading-p)
        (org-back-to-heading t))
      (when (org-before-first-heading-p)
        (user-error "Orgrouter: point is not in a subtree"))
      (let ((begin (point))
            (end (save-excursion (org-end-of-subtree t t) (point))))
        (orgrouter--route (cons (- begin (point-min)) (- end (point-min))))))))

(defun orgrouter--route (within)
  "Route this buffer; WITHIN, if non-nil, is (BEGIN . END) to route only."
  (orgrouter--program)
  (let* ((buffer (current-buffer))
         ;; A megabyte buffer is copied and encoded a few times on its way out;
         ;; collecting garbage after each copy would cost more than the route.
         (gc-cons-threshold (max gc-cons-threshold (* 64 1024 1024)))
         (token (orgrouter--begin-route))
         (tick (buffer-chars-modified-tick))
         (file (orgrouter--file-name))
         (text (save-restriction (widen) (buffer-substring-no-properties (point-min) (point-max))))
         (params (append (list :text text :path file :return_text :json-false)
                         (and within (list :within (vector (car within) (cdr within)))))))
    (condition-case err
        (setq orgrouter-last-route-path
              (orgrouter--call
               :route params
               (lambda (result) (orgrouter--server-done buffer token tick result))
               (lambda (error)
                 (setq orgrouter-last-error
                       (format "orgrouter: route failed: %s" (orgrouter--error-text error)))
                 (orgrouter--finish buffer token 'error orgrouter-last-error))
               (lambda ()
                 (when (and (buffer-live-p buffer)
                            (eq token (buffer-local-value 'orgrouter--running buffer)))
                   (setq orgrouter-last-route-path 'process)
                   (with-current-buffer buffer
                     (orgrouter--route-process buffer token tick within))))))
      (error
       (orgrouter--finish buffer token 'error)
       (signal (car err) (cdr err))))))

(defun orgrouter--server-done (buffer token tick result)
  "Apply a server route RESULT to BUFFER, routed at TICK, for route TOKEN."
  (cond
   ((not (and (buffer-live-p buffer)
              (eq token (buffer-local-value 'orgrouter--running buffer))))
    nil)
   ((/= tick (with-current-buffer buffer (buffer-chars-modified-tick)))
    (orgrouter--finish buffer token 'stale
                       "orgrouter: the buffer changed while routing; nothing applied (run it again)"))
   (t
    (let ((edits (plist-get result :edits))
          (warnings (plist-get result :warnings)))
      (seq-doseq (warning warnings) (message "orgrouter: %s" warning))
      (if (or (eq (plist-get result :changed) :json-false) (zerop (length edits)))
          (orgrouter--finish buffer token 'unchanged
                             (format "orgrouter: %s: nothing to do" (buffer-name buffer)))
        (condition-case err
            (progn
              (with-current-buffer buffer
                ;; jsonrpc.el runs this from its process filter with
                ;; `inhibit-read-only' bound to t; a read-only buffer must stay so.
                (let ((inhibit-read-only nil))
                  (barf-if-buffer-read-only)
                  (orgrouter--apply-edits edits)))
              (orgrouter--finish buffer token 'changed
                                 (orgrouter--summary buffer (plist-get result :routed)
                                                     (plist-get result :results))))
          (error
           (setq orgrouter-last-error
                 (format "orgrouter: %s: nothing applied: %s"
                         (buffer-name buffer) (error-message-string err)))
           (orgrouter--finish buffer token 'error orgrouter-last-error))))))))

(defun orgrouter--apply-edits (edits)
  "Apply the server's EDITS (a vector of plists, in order) as one undo step.
Each is `:begin', `:end' (character offsets of the whole buffer's text, from
0) and `:text'.  They are applied last first, so earlier offsets hold."
  (save-excursion
    (save-restriction
      (widen)
      (let ((base (point-min))
            (group (prepare-change-group))
            (inserted nil)
            (done nil)
            (limit (point-max)))
        ;; Check them all before touching the buffer: ordered, apart, inside it.
        (dolist (edit (reverse (append edits nil)))
          (let ((begin (plist-get edit :begin))
                (end (plist-get edit :end)))
            (unless (and (natnump begin) (natnump end) (stringp (plist-get edit :text))
                         (<= (+ base begin) (+ base end) limit))
              (error "Orgrouter: the server sent an edit outside the buffer: %S" edit))
            (setq limit (+ base begin))))
        (activate-change-group group)
        (unwind-protect
            (progn
              (dolist (edit (reverse (append edits nil)))
                (let ((begin (+ base (plist-get edit :begin)))
                      (end (+ base (plist-get edit :end)))
                      (text (plist-get edit :text)))
                  (goto-char begin)
                  (delete-region begin end)
                  (insert text)
                  ;; Markers: the edits applied next (earlier in the text) shift this one.
                  (push (cons (copy-marker begin) (copy-marker (point) t)) inserted)))
              (setq done t))
          (if (not done)
              (cancel-change-group group) ; all or nothing
            (undo-amalgamate-change-group group)
            (accept-change-group group)))
        (when orgrouter-fold-results
          (dolist (span inserted)
            (orgrouter--fold-drawers (car span) (cdr span))))
        (dolist (span inserted)
          (set-marker (car span) nil)
          (set-marker (cdr span) nil))
        (orgrouter--ensure-keywords)))))

(defun orgrouter--fold-drawers (begin end)
  "Fold the property drawers that start between BEGIN and END."
  (when (derived-mode-p 'org-mode)
    (save-excursion
      (goto-char begin)
      (while (re-search-forward "^[ \t]*:PROPERTIES:[ \t]*$" end t)
        (save-excursion
          (beginning-of-line)
          (ignore-errors (org-hide-drawer-toggle t)))))))

(defun orgrouter--route-process (buffer token tick within)
  "Route BUFFER through `orgrouter route --stdin' (no server), for TOKEN at TICK.
WITHIN is ignored but reported: the process routes the whole buffer."
  (when within
    (message "orgrouter: no server; routing the whole buffer"))
  (let ((command (append (list "route" "--stdin" "--file-name" (orgrouter--file-name))
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
             (orgrouter--process-done buffer token tick code out stderr))))))

(defun orgrouter--process-done (buffer token tick code out stderr)
  "Apply a finished `route --stdin' for TOKEN: BUFFER was at TICK.
CODE, OUT and STDERR are the process's exit code, output buffer and errors."
  (cond
   ((not (and (buffer-live-p buffer)
              (eq token (buffer-local-value 'orgrouter--running buffer))))
    nil)
   ((/= code 0)
    (orgrouter--report-failure "route" code stderr)
    (orgrouter--finish buffer token 'error))
   ((/= tick (with-current-buffer buffer (buffer-chars-modified-tick)))
    (orgrouter--finish buffer token 'stale
                       "orgrouter: the buffer changed while routing; nothing applied (run it again)"))
   (t
    (let ((status (condition-case err
                      (orgrouter--apply-output buffer out)
                    (error
                     (setq orgrouter-last-error
                           (format "orgrouter: %s: nothing applied: %s"
                                   (buffer-name buffer) (error-message-string err)))
                     'error))))
      (orgrouter--finish
       buffer token status
       (cond
        ((eq status 'error) orgrouter-last-error)
        ((eq status 'unchanged)
         (format "orgrouter: %s: nothing to do" (buffer-name buffer)))
        (t
         (let ((line (car (last (split-string stderr "\n" t)))))
           (if (and line (string-prefix-p "routed " line))
               (format "orgrouter: %s: %s" (buffer-name buffer) line)
             (format "orgrouter: %s: routed" (buffer-name buffer)))))))))))

(defun orgrouter--apply-output (buffer out)
  "Merge OUT's text into BUFFER if it differs; return `changed' or `unchanged'."
  (with-current-buffer buffer
    (save-restriction
      (widen)
      (if (zerop (compare-buffer-substrings buffer (point-min) (point-max)
                                            out nil nil))
          'unchanged
        (barf-if-buffer-read-only)
        (let ((group (prepare-change-group)))
          (activate-change-group group)
          (unwind-protect
              ;; Within 2 seconds the minimal diff is kept; past that Emacs replaces
              ;; the text wholesale, which is still correct, only less gentle on markers.
              (replace-buffer-contents out 2.0)
            (undo-amalgamate-change-group group)
            (accept-change-group group)))
        (when orgrouter-fold-results
          (orgrouter--fold-drawers-of-results))
        (orgrouter--ensure-keywords)
        'changed))))

(defun orgrouter--fold-drawers-of-results ()
  "Fold the property drawers of every orgrouter result in the buffer."
  (save-excursion
    (goto-char (point-min))
    (while (re-search-forward "^[ \t]*:ORGROUTER_RESULT:" nil t)
      (when (re-search-backward "^[ \t]*:PROPERTIES:[ \t]*$" (line-beginning-position 0) t)
        (ignore-errors (org-hide-drawer-toggle t)))
      (forward-line 2))))

;;;###autoload
(defun orgrouter-abort ()
  "Abort the route running in this buffer; its answer is never applied.
A route answered by a separate process is killed; one the server works on
stops the server (the next command starts a fresh one)."
  (interactive)
  (let ((token orgrouter--running)
        (proc orgrouter--process))
    (unless token
      (user-error "Orgrouter: no route is running in this buffer"))
    (setq orgrouter--running nil
          orgrouter--process nil)
    (orgrouter--mode-line nil)
    (if (process-live-p proc)
        (delete-process proc)
      (let ((conn orgrouter--connection))
        (setq orgrouter--connection nil)
        (when (and conn (jsonrpc-running-p conn))
          (delete-process (jsonrpc--process conn)))))
    (orgrouter--message "orgrouter: route aborted; nothing applied")
    (run-hook-with-args 'orgrouter-after-route-hook (current-buffer) 'aborted)))

;;;###autoload
(defun orgrouter-route-file ()
  "Route the file this buffer visits, on disk, then revert the buffer.
The buffer must be saved first: orgrouter never writes a file that has
unsaved changes in Emacs.  This runs `orgrouter route FILE', which takes
the notes root's lock and writes through orgrouter's own transaction."
  (interactive)
  (unless buffer-file-name
    (user-error "Orgrouter: this buffer is not visiting a file"))
  (when (buffer-modified-p)
    (user-error "Orgrouter: save the buffer first (or use `orgrouter-route-buffer')"))
  (let ((buffer (current-buffer))
        (file buffer-file-name)
        (token (orgrouter--begin-route)))
    (setq orgrouter--process
          (orgrouter--start
           "orgrouter-route-file"
           (append (list "route") orgrouter-arguments (list file))
           nil
           (lambda (code _out stderr)
             (orgrouter--route-file-done buffer token code stderr))))))

(defun orgrouter--route-file-done (buffer token code stderr)
  "Revert BUFFER after an on-disk route TOKEN that exited with CODE and STDERR."
  (cond
   ((not (and (buffer-live-p buffer)
              (eq token (buffer-local-value 'orgrouter--running buffer))))
    nil)
   ((/= code 0)
    (orgrouter--report-failure "route" code stderr)
    (orgrouter--finish buffer token 'error))
   (t
    (with-current-buffer buffer
      (cond
       ((verify-visited-file-modtime buffer)
        (orgrouter--finish buffer token 'unchanged
                           (format "orgrouter: %s: nothing to do" (buffer-name buffer))))
       ((buffer-modified-p)
        (orgrouter--finish buffer token 'stale
                           "orgrouter: the file changed on disk and the buffer has edits; \
use M-x revert-buffer"))
       (t
        (revert-buffer t t t)
        (orgrouter--ensure-keywords)
        (orgrouter--finish buffer token 'changed
                           (format "orgrouter: %s: %s" (buffer-name buffer)
                                   (if (string-empty-p stderr) "routed" stderr)))))))))

;;;; Classifying

(defun orgrouter--request-at-point ()
  "Return (TEXT . ITEMS) of the request at point: its instruction, as routed.
Stars, TODO keyword, priority, tags and the address are stripped; when
nothing follows the address, the body's top-level list items are ITEMS."
  (unless (derived-mode-p 'org-mode)
    (user-error "Orgrouter: not an Org buffer"))
  (save-excursion
    (when (org-before-first-heading-p)
      (user-error "Orgrouter: point is not on a request headline"))
    (org-back-to-heading t)
    (let* ((heading (org-get-heading t t t t))
           (text (if (string-match "\\(?:\\`\\|[^[:word:]_.]\\)@[[:word:]_-]+" heading)
                     (string-trim (substring heading (match-end 0)))
                   (user-error "Orgrouter: this headline holds no @address")))
           (items nil))
      (when (string-empty-p text)
        (let ((end (save-excursion (outline-next-heading) (point))))
          (forward-line 1)
          (while (re-search-forward "^\\(?:[-+]\\|[0-9]+[.)]\\)[ \t]+\\(.+\\)$" end t)
            (push (match-string-no-properties 1) items))))
      (cons text (nreverse items)))))

;;;###autoload
(defun orgrouter-classify-at-point ()
  "Show the sensor gate's verdict on the request at point.
The echo area gets a summary; the buffer *orgrouter classify* the JSON."
  (interactive)
  (let* ((request (orgrouter--request-at-point))
         (text (car request))
         (items (cdr request))
         (file (orgrouter--file-name))
         (params (if items
                     (list :items (vconcat items) :path file)
                   (list :text text :path file))))
    (when (and (string-empty-p text) (null items))
      (user-error "Orgrouter: the request at point asks nothing"))
    (orgrouter--classify
     params
     (if items
         (apply #'append (list "classify") orgrouter-arguments
                (mapcar (lambda (item) (list "--item" item)) items))
       (append (list "classify") orgrouter-arguments (list "-")))
     (and (null items) text))))

;;;###autoload
(defun orgrouter-classify-region (beg end)
  "Show the sensor gate's JSON for the text between BEG and END.
The JSON goes to the buffer *orgrouter classify*, which is displayed."
  (interactive "r")
  (let ((text (buffer-substring-no-properties beg end)))
    (orgrouter--classify
     (list :text text :path (orgrouter--file-name))
     (append (list "classify") orgrouter-arguments (list "-"))
     text)))

(defun orgrouter--classify (params command input)
  "Classify PARAMS over the server, else run orgrouter COMMAND on INPUT.
Either way the sensor gate's JSON is shown; a failure is a message."
  (orgrouter--call
   :classify params
   (lambda (result)
     (orgrouter--show-classification (orgrouter--json-encode result)))
   (lambda (error)
     (setq orgrouter-last-error
           (format "orgrouter: classify failed: %s" (orgrouter--error-text error)))
     (orgrouter--message orgrouter-last-error))
   (lambda () (orgrouter--classify-process command input))))

(defun orgrouter--classify-process (command input)
  "Run orgrouter COMMAND, sending INPUT (if non-nil), and show its JSON."
  (orgrouter--start
   "orgrouter-classify" command
   (lambda (proc)
     (when input (process-send-string proc input))
     (process-send-eof proc))
   (lambda (code out stderr)
     (if (/= code 0)
         (orgrouter--report-failure "classify" code stderr)
       (orgrouter--show-classification (with-current-buffer out (buffer-string)))))))

(defun orgrouter--show-classification (json)
  "Show the gate's JSON text in *orgrouter classify* and summarize it."
  (let ((gate (orgrouter--json-parse json)))
    (with-current-buffer (get-buffer-create "*orgrouter classify*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert json)
        (ignore-errors (json-pretty-print-buffer))
        (goto-char (point-min))
        (when (fboundp 'js-json-mode) (funcall 'js-json-mode))
        (setq buffer-read-only t))
      (display-buffer (current-buffer)))
    (orgrouter--message
     (format "orgrouter: %s, risk %s, skill %s, guardian %s"
             (plist-get gate :intent) (plist-get gate :risk_level)
             (plist-get gate :primary_skill) (plist-get gate :guardian_decision)))))

;;;; Approvals

(defvar-local orgrouter--keywords-tried nil
  "Non-nil once this buffer's approval keywords were set up (or could not be).")

(defun orgrouter--ensure-keywords ()
  "Make the approval keywords usable with \\[org-todo] in this buffer.
Do it only when the buffer has an approval orgrouter asked for.
Only this buffer's local value of `org-todo-keywords' changes, never the file."
  (when (and (derived-mode-p 'org-mode)
             (not orgrouter--keywords-tried)
             (not (member orgrouter-waiting-keyword org-todo-keywords-1))
             (save-excursion
               (save-restriction
                 (widen)
                 (goto-char (point-min))
                 (re-search-forward "^[ \t]*:ORGROUTER_KIND:[ \t]+approval" nil t))))
    (let ((keywords (append (default-value 'org-todo-keywords)
                            (list (list 'sequence orgrouter-waiting-keyword "|"
                                        orgrouter-approve-keyword orgrouter-reject-keyword)))))
      ;; Org 9.5 builds the buffer's keyword tables from the default value (when
      ;; the file has no #+TODO line), so bind that while they are rebuilt; the
      ;; tables it sets are buffer-local, and so is the value kept for the record.
      (cl-letf (((default-value 'org-todo-keywords) keywords))
        (org-set-regexps-and-options))
      (setq-local org-todo-keywords keywords)
      ;; A #+TODO line wins over both; then there is nothing to retry each route.
      (setq orgrouter--keywords-tried t))))

(defun orgrouter--decide (keyword)
  "Set the WAITING approval at point to KEYWORD."
  (unless (derived-mode-p 'org-mode)
    (user-error "Orgrouter: not an Org buffer"))
  (orgrouter--ensure-keywords)
  (save-excursion
    (when (org-before-first-heading-p)
      (user-error "Orgrouter: point is not on an approval"))
    (org-back-to-heading t)
    (unless (equal (org-entry-get (point) "ORGROUTER_KIND") "approval")
      (user-error "Orgrouter: this headline is not an approval orgrouter asked for"))
    (unless (equal (org-get-todo-state) orgrouter-waiting-keyword)
      (user-error "Orgrouter: this approval is %s already, not %s"
                  (or (org-get-todo-state) "without keyword") orgrouter-waiting-keyword))
    (let ((org-inhibit-logging t))
      (org-todo keyword))
    (orgrouter--message (format "orgrouter: %s %s; route the buffer to act on it"
                                (downcase keyword) (org-get-heading t t t t)))))

;;;###autoload
(defun orgrouter-approve ()
  "Approve the WAITING item at point.
The next route runs what it holds."
  (interactive)
  (orgrouter--decide orgrouter-approve-keyword))

;;;###autoload
(defun orgrouter-reject ()
  "Reject the WAITING item at point.
The next route closes it."
  (interactive)
  (orgrouter--decide orgrouter-reject-keyword))

;;;; What waits on the user

(defvar-local orgrouter--pending-root nil
  "The file whose notes root the pending list shows.")

(define-derived-mode orgrouter-pending-mode tabulated-list-mode "orgrouter-pending"
  "A list of requests, clarifications and approvals that wait on you.
\\<orgrouter-pending-mode-map>\\[orgrouter-pending-visit] visits one; \
\\[revert-buffer] lists them again."
  (setq tabulated-list-format [("Kind" 13 t) ("State" 9 t) ("File" 28 t)
                               ("Line" 6 orgrouter--line-less) ("Title" 0 t)])
  (setq tabulated-list-sort-key nil)
  (add-hook 'tabulated-list-revert-hook #'orgrouter--pending-refresh nil t)
  (tabulated-list-init-header))

(defun orgrouter--line-less (a b)
  "Return non-nil when entry A's line is before entry B's."
  (< (string-to-number (aref (cadr a) 3)) (string-to-number (aref (cadr b) 3))))

(define-key orgrouter-pending-mode-map (kbd "RET") #'orgrouter-pending-visit)

(defun orgrouter-pending-visit ()
  "Visit the headline of the pending item on this line."
  (interactive)
  (let ((where (tabulated-list-get-id)))
    (unless where (user-error "Orgrouter: no item on this line"))
    (find-file (car where))
    (widen)
    (goto-char (point-min))
    (forward-line (1- (cdr where)))
    (when (derived-mode-p 'org-mode) (org-reveal))))

;;;###autoload
(defun orgrouter-list-pending ()
  "List the requests, clarifications and approvals waiting across the notes.
The notes are those of this buffer's notes root (where `orgrouter.toml' is)."
  (interactive)
  (let ((file (or buffer-file-name orgrouter--pending-root
                  ;; Not a note: walking the whole directory tree it is in could be huge.
                  (user-error "Orgrouter: visit a note first; its notes root is listed"))))
    (with-current-buffer (get-buffer-create "*orgrouter pending*")
      (orgrouter-pending-mode)
      (setq orgrouter--pending-root file)
      (orgrouter--pending-refresh)
      (pop-to-buffer (current-buffer)))))

(defun orgrouter--pending-refresh ()
  "Fill the pending list from the server, or from the files themselves."
  (let ((buffer (current-buffer))
        (file orgrouter--pending-root))
    (orgrouter--call
     :pending (list :path file)
     (lambda (result)
       (orgrouter--pending-show buffer (append (plist-get result :items) nil)
                                (append (plist-get result :errors) nil)))
     (lambda (error)
       (setq orgrouter-last-error
             (format "orgrouter: pending failed: %s" (orgrouter--error-text error)))
       (orgrouter--message orgrouter-last-error))
     (lambda ()
       (orgrouter--pending-show buffer (orgrouter--scan-pending file) nil)))))

(defun orgrouter--pending-show (buffer items errors)
  "Show ITEMS (plists) in the pending list BUFFER; report ERRORS."
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (setq tabulated-list-entries
            (mapcar
             (lambda (item)
               (let ((file (plist-get item :file))
                     (line (plist-get item :line)))
                 (list (cons file line)
                       (vector (plist-get item :kind)
                               (or (plist-get item :keyword) "")
                               (file-name-nondirectory file)
                               (number-to-string line)
                               (plist-get item :title)))))
             items))
      (tabulated-list-print t)))
  (dolist (error errors) (message "orgrouter: %s" error))
  (orgrouter--message (format "orgrouter: %d item%s waiting on you"
                              (length items) (if (= 1 (length items)) "" "s"))))

(defun orgrouter--notes-root (file)
  "Return the notes root of FILE: the nearest directory with `orgrouter.toml'."
  (let ((dir (file-name-directory (expand-file-name file))))
    (or (locate-dominating-file dir "orgrouter.toml")
        (locate-dominating-file dir ".git")
        dir)))

(defun orgrouter--scan-pending (file)
  "Return the pending items under FILE's notes root, found without the server.
This reads property drawers only: an instruction edited since its last
route is not noticed (the server compares its hash)."
  (let ((items nil))
    (dolist (org (directory-files-recursively
                  (orgrouter--notes-root file) "\\.org\\'" nil
                  (lambda (dir) (not (string-prefix-p "." (file-name-nondirectory dir))))))
      (with-temp-buffer
        (insert-file-contents org)
        (let ((org-inhibit-startup t)
              (org-mode-hook nil))
          (delay-mode-hooks (org-mode)))
        (org-map-entries
         (lambda ()
           (let ((kind (org-entry-get (point) "ORGROUTER_KIND"))
                 (status (org-entry-get (point) "ORGROUTER_STATUS"))
                 (title (org-get-heading t t t t))
                 (line (line-number-at-pos)))
             (cond
              ((and (equal kind "approval") (null status))
               (push (list :kind "approval" :file org :line line :title title
                           :keyword (or (save-excursion
                                          (and (looking-at "\\*+ +\\([[:upper:]]+\\) ")
                                               (match-string 1)))
                                        ""))
                     items))
              ((and (equal kind "clarification")
                    (member (save-excursion
                              (and (org-up-heading-safe)
                                   (org-entry-get (point) "ORGROUTER_STATUS")))
                            '("clarify" "waiting")))
               (push (list :kind "clarification" :file org :line line :title title :keyword "")
                     items))
              ((and (null kind) (string-match-p "\\(?:\\`\\|[^[:word:]_.]\\)@[[:word:]_-]+" title)
                    (not (org-entry-get (point) "ORGROUTER_HASH")))
               (push (list :kind "request" :file org :line line :title title :keyword "")
                     items))
              ((and (null kind) (equal status "error"))
               (push (list :kind "error" :file org :line line :title title :keyword "")
                     items))))))))
    (nreverse items)))

;;;; The minor mode

(defvar orgrouter-command-map
  (let ((map (make-sparse-keymap)))
    (define-key map "r" #'orgrouter-route-buffer)
    (define-key map "s" #'orgrouter-route-subtree)
    (define-key map "f" #'orgrouter-route-file)
    (define-key map "c" #'orgrouter-classify-at-point)
    (define-key map "a" #'orgrouter-approve)
    (define-key map "x" #'orgrouter-reject)
    (define-key map "l" #'orgrouter-list-pending)
    (define-key map "k" #'orgrouter-abort)
    map)
  "Keymap of orgrouter commands, bound to `C-c _' in `orgrouter-mode'.
Bind it under another prefix with, e.g.,
  (define-key orgrouter-mode-map (kbd \"C-c _\") nil)
  (define-key orgrouter-mode-map (kbd \"C-c o\") orgrouter-command-map)")
(fset 'orgrouter-command-map orgrouter-command-map)

(defvar orgrouter-mode-map
  (let ((map (make-sparse-keymap)))
    ;; C-c followed by punctuation is for minor modes; Org 9.5 leaves `_' free.
    (define-key map (kbd "C-c _") 'orgrouter-command-map)
    map)
  "Keymap of `orgrouter-mode'.")

;;;###autoload
(define-minor-mode orgrouter-mode
  "Route @agent requests in this Org buffer with orgrouter.
\\<orgrouter-mode-map>Commands are under \\[orgrouter-command-map]:
\\{orgrouter-command-map}"
  :lighter " OR"
  :keymap orgrouter-mode-map
  (when orgrouter-mode
    (orgrouter--ensure-keywords)))

(provide 'orgrouter)

;;; orgrouter.el ends here
